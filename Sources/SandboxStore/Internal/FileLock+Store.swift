import Glibc
import Sandbox
import SandboxCore
import SystemPackage

/// A store's lock file beside its data file (``FileLock``, opened through the container's root):
/// every process that writes the data file holds the exclusive lock while it reads, merges and
/// replaces it.
///
/// The lock file also carries a generation counter (its first 8 bytes), which each writer raises
/// under the lock, so a process can tell cheaply whether its cached copy of the data is current.
/// The counter is not synced to disk: after a crash every process starts from the file anyway.
extension FileLock {
    /// Runs `body` holding the lock: exclusive for writers, shared for readers that need the
    /// generation and the data to match.
    func withLock<T>(exclusive: Bool, _ body: () throws(SandboxError) -> T) throws(SandboxError) -> T {
        try lock(exclusive ? .exclusive : .shared)
        defer { unlock() }
        return try body()
    }

    /// ``withLock(exclusive:_:)`` with a bounded wait: when another process still holds the lock
    /// at `deadline`, `body` does not run and the result is `nil`.
    func withLock<T>(
        exclusive: Bool, waitingUntil deadline: ContinuousClock.Instant, _ body: () throws(SandboxError) -> T
    ) throws(SandboxError) -> T? {
        guard try lock(exclusive ? .exclusive : .shared, until: deadline) else { return nil }
        defer { unlock() }
        return try body()
    }

    /// The generation counter; 0 for a new lock file.
    func generation() throws(SandboxError) -> UInt64 {
        var value: UInt64 = 0
        let count = try call("pread") { pread(descriptor.rawValue, &value, 8, 0) }
        return count == 8 ? UInt64(littleEndian: value) : 0
    }

    /// Sets the generation counter (under the exclusive lock).
    func setGeneration(_ generation: UInt64) throws(SandboxError) {
        var value = generation.littleEndian
        _ = try call("pwrite") { pwrite(descriptor.rawValue, &value, 8, 0) }
    }

    @discardableResult
    private func call<R: FixedWidthInteger>(_ name: String, _ body: () -> R) throws(SandboxError) -> R {
        while true {
            let result = body()
            if result != -1 { return result }
            let error = Errno(rawValue: errno)
            if error == .interrupted { continue }
            throw SandboxError(
                .io, "Could not \(name) the lock file '\(path)' (\(error)).", path: path,
                cause: SystemCallFailure(systemCall: name, errno: error))
        }
    }
}
