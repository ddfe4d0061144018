import Foundation
import SandboxCore
import SystemPackage

/// A private directory under `$TMPDIR` for the files a backup or restore makes on the way (online
/// copies of databases, the manifest), removed by ``remove()``.
final class ScratchDirectory {
    let parent: ConfinedRoot
    let name: ContainerPath
    let root: ConfinedRoot

    init() throws(SandboxError) {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        parent = try ConfinedRoot(openingDirectoryAt: base)
        name = try ContainerPath("sandbox-backup-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        try parent.createDirectory(at: name)
        try parent.setPermissions([.ownerReadWriteExecute], at: name)
        root = try parent.openSubroot(at: name)
    }

    /// The host path of `file` in the directory, for SQLite, which opens by path.
    func hostPath(_ file: String) -> String { root.hostPath + "/" + file }

    func remove() {
        // Clean-up only: a failure leaves a directory in $TMPDIR, nothing worse.
        _ = try? parent.removeItem(at: name, recursively: true)
    }
}
