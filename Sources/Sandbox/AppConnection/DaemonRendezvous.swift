import Foundation
import Glibc
import SandboxCore
import SystemPackage

/// Reaching `sandboxd`'s socket from a thread the caller owns (blocking calls, each bounded), and
/// starting the daemon when nothing listens: under an exclusive `flock` on a lock file beside the
/// socket, so of two clients starting at once one starts the daemon and the other, once it holds
/// the lock, finds it listening.
///
/// Used by `sandbox run`'s and the daemon's ``DaemonBroker`` and, on an ``IOEngine`` thread, by the
/// apps' library: the one place the daemon is started.
package enum DaemonRendezvous {
    /// How long a started daemon may take to listen, and a client may wait for the start lock.
    package static let startTimeout: Duration = .seconds(20)
    /// How long one `connect`, `send` or `recv` on the daemon's socket may block.
    package static let ioTimeout: Duration = .seconds(10)

    /// A blocking, close-on-exec socket connected to the daemon of `location`, or `nil` when
    /// nothing listens there (no socket file, or a stale one).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonUnavailable`` for any other failure.
    package static func connect(_ location: DaemonLocation) throws(SandboxError) -> CInt? {
        let path = Array(location.socket.utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SandboxError(
                .daemonUnavailable,
                "The socket path '\(location.socket)' is too long for a Unix socket; set XDG_RUNTIME_DIR to a shorter folder.",
                path: location.socket)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket", location) }
        setTimeouts(fd, ioTimeout)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = failure("connect", location)
            Glibc.close(fd)
            if let cause = error.cause, cause.errno == .noSuchFileOrDirectory || cause.errno == .connectionRefused {
                return nil
            }
            throw error
        }
        return fd
    }

    /// ``connect(_:)``, starting the daemon first when nothing listens. Blocks for at most
    /// ``startTimeout`` (plus one connect): call it on a thread you own.
    ///
    /// - Parameter environment: the daemon's environment, if this call starts it.
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when it cannot be started or
    ///   reached in time.
    package static func connectStartingIfNeeded(
        _ location: DaemonLocation, environment: [String: String]
    ) throws(SandboxError) -> CInt {
        if let fd = try connect(location) { return fd }
        try makeRuntimeDirectory(location)
        let deadline = ContinuousClock.now + startTimeout
        let lock = try takeSpawnLock(location.spawnLock, until: deadline)
        defer { withExtendedLifetime(lock) {} }
        // Another client may have started it while this one waited for the lock.
        if let fd = try connect(location) { return fd }
        let executable = try DaemonExecutable.path(environment: environment)
        let daemon = try DaemonExecutable.start(executable, location: location, environment: environment)
        var connected: CInt?
        _ = try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in
            connected = try connect(location)
            if connected != nil { return true }
            if daemon.hasExited {
                connected = try connect(location)
                guard connected != nil else {
                    throw SandboxError(
                        .daemonUnavailable,
                        "sandboxd (\(executable), pid \(daemon.pid)) exited before listening on '\(location.socket)'; its log is '\(location.log)'.",
                        path: location.socket)
                }
            }
            return connected != nil
        }
        if let connected { return connected }
        throw SandboxError(
            .daemonUnavailable,
            "sandboxd (pid \(daemon.pid)) did not listen on '\(location.socket)' within \(startTimeout); its log is '\(location.log)'.",
            path: location.socket)
    }

    /// Bounds every blocking `send`, `recv` and `connect` on `fd` by `timeout`.
    package static func setTimeouts(_ fd: CInt, _ timeout: Duration) {
        var value = timeout.timeval
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func makeRuntimeDirectory(_ location: DaemonLocation) throws(SandboxError) {
        do {
            try FileManager.default.createDirectory(
                atPath: location.runtimeDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw SandboxError(
                .daemonUnavailable, "Could not create sandboxd's folder '\(location.runtimeDirectory)': \(error).",
                path: location.runtimeDirectory)
        }
    }

    /// Takes the exclusive lock on the daemon's start lock `path` (created if needed), waiting
    /// until `deadline` at most; released when the value goes away.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when the file cannot be
    ///   opened or locked, or the lock is still held at the deadline.
    private static func takeSpawnLock(
        _ path: String, until deadline: ContinuousClock.Instant
    ) throws(SandboxError)
        -> FileLock
    {
        func reason(_ error: SandboxError) -> String { error.cause.map { "\($0.errno)" } ?? error.message }
        let lock: FileLock
        do {
            lock = try FileLock(hostPath: path)
        } catch {
            throw SandboxError(
                .daemonUnavailable, "Could not open sandboxd's start lock '\(path)' (\(reason(error))).", path: path)
        }
        let taken: Bool
        do {
            taken = try lock.lock(.exclusive, until: deadline)
        } catch {
            throw SandboxError(
                .daemonUnavailable, "Could not lock sandboxd's start lock '\(path)' (\(reason(error))).", path: path)
        }
        guard taken else {
            throw SandboxError(
                .daemonUnavailable, "Another process held sandboxd's start lock '\(path)' for too long; try again.",
                path: path)
        }
        return lock
    }

    private static func failure(_ call: String, _ location: DaemonLocation) -> SandboxError {
        let errno = Errno(rawValue: Glibc.errno)
        return SandboxError(
            .daemonUnavailable, "Could not reach sandboxd at '\(location.socket)': \(call) failed (\(errno)).",
            path: location.socket, cause: SystemCallFailure(systemCall: call, errno: errno))
    }
}
