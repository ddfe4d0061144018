import Foundation
import Glibc
import SystemPackage

/// One inotify instance (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`), closed when released.
///
/// Each monitor owns one instance for all its watches; instances are limited per user
/// (`fs.inotify.max_user_instances`, 128 by default) and watches too (`fs.inotify.max_user_watches`).
final class InotifyInstance: Sendable {
    let descriptor: CInt

    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` naming `/proc/sys/fs/inotify/max_user_instances`.
    init() throws(SandboxError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .inotifyInstance(errno: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Watches the directory open at `directory` (a descriptor from
    /// ``/SandboxCore/ConfinedRoot/openDirectory(_:flags:followFinalSymlink:)``).
    ///
    /// inotify takes a path, not a descriptor: the watch is added through `/proc/self/fd/N`, a magic
    /// link the kernel follows to the very directory the descriptor holds, so no path in the
    /// container is resolved a second time, and a symlink or a directory swapped in meanwhile
    /// cannot redirect the watch outside the container. Watching a directory watched already
    /// returns its watch descriptor (one per inode).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/noSpace`` naming `/proc/sys/fs/inotify/max_user_watches`, and
    ///   the other `inotify_add_watch` errors.
    func addWatch(on directory: borrowing OwnedDescriptor, path: ContainerPath) throws(SandboxError) -> Int32 {
        let watch = inotify_add_watch(
            descriptor, "/proc/self/fd/\(directory.rawValue)", InotifyEvent.Mask.watched.rawValue)
        guard watch >= 0 else { throw .inotifyWatch(errno: errno, path: path.description) }
        return watch
    }

    /// Removes a watch; one the kernel dropped already (`EINVAL`) is fine.
    func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// The number of watches of the instance open at `descriptor` (the `inotify wd:` lines of
    /// `/proc/self/fdinfo/N`), or `nil` when procfs cannot tell. For tests and diagnostics.
    static func watchCount(of descriptor: CInt) -> Int? {
        do {
            let fdinfo = try String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8)
            return fdinfo.split(separator: "\n").count { $0.hasPrefix("inotify wd:") }
        } catch {
            return nil
        }
    }

    /// Reads what is queued into `buffer`: the records, an empty array once the queue is drained
    /// (`EAGAIN`), or the error of a real failure.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<[InotifyEvent], SandboxError> {
        switch retryingEINTR({ Glibc.read(descriptor, buffer.baseAddress, buffer.count) }) {
        case .success(let count):
            return .success(InotifyParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
        case .failure(let error) where error == .resourceTemporarilyUnavailable:
            return .success([])
        case .failure(let error):
            return .failure(.systemCall("read", errno: error, path: "inotify"))
        }
    }
}
