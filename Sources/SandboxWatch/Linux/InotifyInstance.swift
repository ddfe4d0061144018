import Glibc

/// One inotify instance (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`), closed when released.
///
/// Each monitor owns one instance for all its watches; instances are limited per user
/// (`fs.inotify.max_user_instances`, 128 by default) and watches too (`fs.inotify.max_user_watches`).
final class InotifyInstance: Sendable {
    let descriptor: CInt

    /// - Throws: ``SandboxError/Code/tooManyOpenFiles`` naming `/proc/sys/fs/inotify/max_user_instances`.
    init() throws(SandboxError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw .inotifyInstance(errno: errno) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Watches the directory open at `directory` through `/proc/self/fd/N` (see ``DirectoryOpener``).
    ///
    /// - Throws: ``SandboxError/Code/noSpace`` naming `/proc/sys/fs/inotify/max_user_watches`, or
    ///   ``SandboxError/Code/notADirectory``/``SandboxError/Code/notFound``.
    func addWatch(on directory: CInt, path: String) throws(SandboxError) -> Int32 {
        let watch = inotify_add_watch(descriptor, "/proc/self/fd/\(directory)", InotifyEvent.Mask.watched.rawValue)
        guard watch >= 0 else { throw .inotifyWatch(errno: errno, path: path) }
        return watch
    }

    /// Removes a watch; one the kernel dropped already (`EINVAL`) is fine.
    func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor, watch)
    }

    /// Reads what is queued into `buffer`: the records, an empty array once the queue is drained
    /// (`EAGAIN`), or the `errno` of a real failure.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<[InotifyEvent], SandboxError> {
        let count = retryingInterrupts { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
        if count < 0 {
            if errno == EAGAIN { return .success([]) }
            return .failure(.watch("read", errno: errno, path: "inotify"))
        }
        return .success(InotifyParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
    }
}
