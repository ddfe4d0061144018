import Foundation
import GRDB
import Sandbox
import SandboxCore
import Testing

@testable import SandboxBackup

/// The tree and `Manifest.db` encode each node once (``TreeJSON``); their bytes must stay what
/// encoding the whole array made before.
@Suite struct TreeJSONTests {
    static func node(_ path: [UInt8], kind: TreeNode.Kind = .file, everything: Bool = false) -> TreeNode {
        TreeNode(
            path: Data(path), kind: kind, mode: 0o644, uid: 1000, gid: 1000, size: everything ? 1 << 40 : 12,
            modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789),
            accessed: everything ? Timestamp(seconds: -1, nanoseconds: 999_999_999) : nil,
            extendedAttributes: everything ? ["user.b": Data([0, 255]), "user.a": Data("x/y\"z".utf8)] : nil,
            chunks: kind == .file ? [String(repeating: "ab", count: 32), String(repeating: "0f", count: 32)] : nil,
            target: kind == .symlink ? Data("../a/b\\c".utf8) : nil,
            hardLinkTo: everything ? Data([0x66, 0xFF, 0x2F]) : nil, source: everything ? "sqlite-online-backup" : nil,
            inode: UInt64.max, device: 2049, changed: Timestamp(seconds: 0, nanoseconds: 0))
    }

    /// Fixed trees: empty, one node, names that are not UTF-8, escapes, every optional field.
    static let trees: [[TreeNode]] = [
        [],
        [node(Array("Documents".utf8), kind: .directory)],
        [
            node(Array("Documents".utf8), kind: .directory),
            node(Array("Documents/é \"quoted\"/\\slash".utf8)),
            node([0x44, 0x6F, 0x63, 0x2F, 0xFF, 0xFE, 0x00, 0x0A], everything: true),
            node(Array("Library/link".utf8), kind: .symlink),
            node(Array("tmp/\u{1F600}\t\u{7}".utf8), everything: true),
        ],
    ]

    @Test(arguments: trees) func theTreeIsByteForByteTheEncodedArray(_ nodes: [TreeNode]) throws {
        #expect(TreeJSON.encode(nodes) == RepositoryJSON.encode(nodes))
        var tree = TreeJSON()
        for node in nodes {
            #expect(Array(tree.append(node)) == RepositoryJSON.encode(node))
        }
        #expect(tree.count == nodes.count)
        let bytes = tree.finish()
        #expect(try JSONDecoder.repository.decode([TreeNode].self, from: Data(bytes)) == nodes)
    }

    /// A backup's tree and its `Manifest.db` rows hold the same JSON of each node.
    @Test func theManifestRowsHoldEachNodesJSON() async throws {
        try await BackupFixture.with { fixture in
            // 1,000 nodes: a tree of ~400 KB, taken from the encoder 64 KiB at a time.
            for index in 0..<1_000 {
                try fixture.container.root.writeContents(
                    Array("file \(index)".utf8), to: ContainerPath("Documents/\(index).txt"), options: [])
            }
            let repository = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try #require(try await repository.snapshots().last)
            let path = fixture.hostPath("tmp/Manifest.db")
            // Repository reads block: on a thread of their own, not the test's pool.
            let (treeBytes, nodes) = try await OwnedThread.run(name: "tree-json-test") {
                () throws(SandboxError) in
                let part = try SnapshotTree.part(of: BackupFixture.app.rawValue, in: snapshot)
                let treeBytes = try repository.loadSplit(part.tree)
                let nodes = try SnapshotTree.nodes(of: part, in: snapshot, from: repository)
                let manifest = try repository.loadSplit(part.manifest)
                try fixture.container.root.writeContents(manifest, to: ContainerPath("tmp/Manifest.db"), options: [])
                return (treeBytes, nodes)
            }
            let rows = try DatabaseQueue(path: path).read { db in
                try Row.fetchAll(db, sql: "SELECT fileID, domain, relativePath, flags, file FROM Files")
            }
            #expect(nodes.count > 1_000)
            #expect(treeBytes.count > 256 << 10)
            #expect(treeBytes == RepositoryJSON.encode(nodes))
            #expect(rows.count == nodes.count)
            let byPath = Dictionary(uniqueKeysWithValues: rows.map { (($0["relativePath"] as String?) ?? "", $0) })
            let domain = "AppDomain-" + BackupFixture.app.rawValue
            for node in nodes {
                let row = try #require(byPath[node.displayPath])
                #expect(row["file"] as Data? == Data(RepositoryJSON.encode(node)))
                #expect(row["domain"] as String? == domain)
                let fileID = ManifestDatabase.fileID(domain: domain, relativePath: node.displayPath)
                #expect(row["fileID"] as String? == fileID)
                #expect(row["flags"] as Int? == ManifestDatabase.flags(node.kind))
            }
        }
    }
}
