import Foundation
import Sandbox
@_spi(Fuzzing) import SandboxBackup

extension FuzzTarget {
    /// A snapshot's tree (the JSON array of its nodes), read by the canonical reader a backup and a
    /// restore try first. It may give up on anything, never answer otherwise than Foundation's
    /// decoder (which it falls back to); the nodes either decodes write back to bytes that read
    /// back to the same nodes.
    static let backupTree = FuzzTarget(
        name: "backup-tree",
        run: { bytes in
            let (canonical, foundation) = BackupFuzzEntryPoints.tree(bytes)
            if let canonical {
                invariant(foundation != nil, "the canonical reader read a tree Foundation refuses")
                invariant(canonical == foundation, "the canonical reader read other nodes than Foundation")
            }
            if let foundation {
                let (again, readBack) = BackupFuzzEntryPoints.treeRoundTrip(foundation)
                invariant(readBack == foundation, "nodes written as a tree (\(again.count) bytes) read back otherwise")
            }
        },
        seeds: {
            let node = TreeNode(
                path: Data("Documents/a\u{1}/b".utf8), kind: .file, mode: 0o644, uid: 501, gid: 20, size: 5,
                modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 5), accessed: nil,
                extendedAttributes: nil, chunks: [String(repeating: "ab", count: 32)], target: nil,
                hardLinkTo: nil, source: "sqlite-online-backup", inode: 7, device: 2049,
                changed: Timestamp(seconds: -1, nanoseconds: 999_999_999))
            var link = node
            link.kind = .symlink
            link.chunks = nil
            link.target = Data([0xFF, 0x2F])
            link.accessed = Timestamp(seconds: 0, nanoseconds: 0)
            var attributed = node
            attributed.extendedAttributes = ["user.x": Data([1, 2])]
            return [
                "two-nodes.json": BackupFuzzEntryPoints.treeRoundTrip([node, link]).bytes,
                "attributes.json": BackupFuzzEntryPoints.treeRoundTrip([attributed]).bytes,
                "empty.json": Array("[]".utf8),
            ]
        })
}
