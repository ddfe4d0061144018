import Foundation
import Sandbox

/// What identifies one version of a file the store replaces on every write: the inode changes
/// with each replacement, and the status-change time and size tell apart the rare reuse of an
/// inode number.
struct FileStamp: Hashable, Sendable {
    var inode: UInt64
    var size: Int64
    var changed: Double

    /// The stamp of the file at `path`, or `nil` when there is none (a symlink is not followed).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with the core's codes.
    static func of(_ path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> FileStamp? {
        try root.attributes(at: path, followingSymlink: false).map {
            FileStamp(inode: $0.inode, size: $0.size, changed: $0.statusChangeDate.timeIntervalSinceReferenceDate)
        }
    }
}
