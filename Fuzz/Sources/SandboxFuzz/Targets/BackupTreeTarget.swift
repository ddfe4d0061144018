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
        seeds: { BackupFuzzEntryPoints.treeSeeds() })
}
