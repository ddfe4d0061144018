import Glibc
import SystemPackage

/// An advisory lock on a file, taken with `flock(2)`: the one lock-file type of the package (a
/// store's data file, sandboxd's start lock and its pid file, a download session's folder).
///
/// The descriptor is opened through the caller's ``ConfinedRoot`` (for a file inside a container
/// or the device home) or at a host path the caller owns (a runtime folder), close-on-exec so no
/// child inherits the lock, and closed — releasing the lock — when the value goes away: hold the
/// value for as long as the lock must be held (a daemon's lifetime).
///
/// A lock is ``Mode/shared`` or ``Mode/exclusive``. ``tryLock(_:)`` never waits;
/// ``lock(_:until:)`` waits until a deadline, trying again and again (``BoundedPoll``), so a
/// process that holds the lock for ever cannot hang the waiter; ``lock(_:)`` waits without bound.
package final class FileLock: Sendable {
    /// Who else may hold the lock at the same time.
    package enum Mode: Sendable {
        /// Other shared holders, no exclusive one.
        case shared
        /// Nobody else.
        case exclusive

        fileprivate var operation: CInt { self == .shared ? LOCK_SH : LOCK_EX }
    }

    /// The lock file, as messages name it.
    package let path: String
    /// The open lock file (owned: closed when the lock goes away). Its contents are the caller's
    /// (a generation counter, a pid).
    package let descriptor: FileDescriptor

    /// Opens (creating, mode 0600) the lock file at `path` beneath `root`.
    ///
    /// - Throws: the errors of ``ConfinedRoot/openFileDescriptor(at:creatingWith:)``.
    package init(root: ConfinedRoot, path: ContainerPath) throws(SandboxError) {
        self.path = path.description
        descriptor = try root.openFileDescriptor(at: path, creatingWith: [.ownerReadWrite])
    }

    /// Opens the existing lock file at `path` beneath `root` read-only: a lock whose descriptor a
    /// child may inherit without being able to change the file (a confined program keeping its
    /// registration alive; see `ConfinedLaunch`). ``replaceContents(with:)`` does nothing through it.
    ///
    /// - Throws: ``SandboxError/Code/notFound`` and the other errors of opening beneath `root` (a
    ///   symlink in the last component is refused).
    package init(readingAt path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        self.path = path.description
        let file = try root.open(path, flags: O_RDONLY | O_NOCTTY | O_NONBLOCK, followFinalSymlink: false)
        descriptor = FileDescriptor(rawValue: file.release())
    }

    /// Opens (creating, mode 0600) the lock file at the host path `path`, in a folder the caller
    /// owns (not inside a container: nothing is confined here).
    ///
    /// - Throws: the `open` error (``SandboxError/systemCall(_:errno:path:file:line:)``).
    package init(hostPath path: String) throws(SandboxError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .systemCall("open", errno: Errno(rawValue: errno), path: path) }
        self.path = path
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit {
        _ = close(descriptor.rawValue)  // nothing to do about a failed close of a lock file
    }

    /// Takes the lock if nobody holds it in a conflicting mode; never waits.
    ///
    /// - Returns: whether the lock is now held.
    /// - Throws: ``SandboxError/Code/io`` (cause `flock`) when the file system has no such locks.
    package func tryLock(_ mode: Mode) throws(SandboxError) -> Bool {
        while flock(descriptor.rawValue, mode.operation | LOCK_NB) != 0 {
            let error = Errno(rawValue: errno)
            if error == .interrupted { continue }
            if error == .wouldBlock { return false }
            throw failure(error)
        }
        return true
    }

    /// Takes the lock, waiting until `deadline` at most. Sleeps between tries on the calling
    /// thread: call it from a thread you own, never from one of the cooperative pool (there, use
    /// the `async` form).
    ///
    /// - Returns: whether the lock is now held (`false`: another process still held it at
    ///   `deadline`).
    /// - Throws: ``SandboxError/Code/io`` (cause `flock`) when the file system has no such locks.
    package func lock(_ mode: Mode, until deadline: ContinuousClock.Instant) throws(SandboxError) -> Bool {
        try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in try tryLock(mode) }
    }

    /// Takes the lock, waiting until `deadline` at most, suspended (not blocking a thread) between
    /// tries.
    ///
    /// - Returns: whether the lock is now held (`false`: another process still held it at
    ///   `deadline`, or the task was cancelled).
    /// - Throws: ``SandboxError/Code/io`` (cause `flock`) when the file system has no such locks.
    package func lock(_ mode: Mode, until deadline: ContinuousClock.Instant) async throws(SandboxError) -> Bool {
        try await BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in try tryLock(mode) }
    }

    /// Takes the lock, waiting as long as another process holds it. Blocks the calling thread:
    /// call it from a thread you own.
    ///
    /// - Throws: ``SandboxError/Code/io`` (cause `flock`) when the file system has no such locks.
    package func lock(_ mode: Mode) throws(SandboxError) {
        while flock(descriptor.rawValue, mode.operation) != 0 {
            let error = Errno(rawValue: errno)
            if error == .interrupted { continue }
            throw failure(error)
        }
    }

    /// Replaces the file's contents with `bytes` (what the holder wants others to read, such as
    /// its pid). Best effort: a lock file that cannot be written is still a lock.
    package func replaceContents(with bytes: [UInt8]) {
        _ = ftruncate(descriptor.rawValue, 0)
        _ = bytes.withUnsafeBytes { pwrite(descriptor.rawValue, $0.baseAddress, $0.count, 0) }
    }

    /// Lets go of the lock (closing the file would too).
    package func unlock() {
        _ = flock(descriptor.rawValue, LOCK_UN)
    }

    private func failure(_ error: Errno) -> SandboxError {
        SandboxError(
            .io,
            "Could not flock the lock file '\(path)' (\(error)). Check that the file system supports file locks.",
            path: path, cause: SystemCallFailure(systemCall: "flock", errno: error))
    }
}
