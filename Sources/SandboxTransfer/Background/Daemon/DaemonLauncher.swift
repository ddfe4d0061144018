import Foundation
import Glibc

/// Connects to `sandboxd`, starting it when nothing listens: the start happens under an exclusive
/// `flock` on a lock file beside the socket, so of two apps starting at once one starts the daemon
/// and the other, once it holds the lock, finds it listening.
package enum DaemonLauncher {
    /// How long a started daemon may take to listen.
    package static let startTimeout: Duration = .seconds(20)

    /// A connection that has shaken hands with the running daemon, started if needed.
    ///
    /// - Throws: ``TransferError/Code/daemonUnavailable`` when it cannot be started or reached;
    ///   the daemon's refusal of the hello otherwise.
    package static func connect(
        paths: DaemonPaths, hello: ClientMessage.Hello, startIfNeeded: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(TransferError) -> DaemonConnection {
        do {
            return try await DaemonConnection.connect(path: paths.socket, hello: hello)
        } catch  where error.code == .daemonUnavailable && startIfNeeded {
            // not running: start it below
        }
        try paths.prepare()
        let lock = try await SpawnLock.acquire(paths.spawnLock)
        defer { withExtendedLifetime(lock) {} }
        // Another app may have started it while this one waited for the lock.
        do {
            return try await DaemonConnection.connect(path: paths.socket, hello: hello)
        } catch  where error.code == .daemonUnavailable {
            // still not running: this app starts it
        }
        let executable = try DaemonExecutable.path(environment: environment)
        let daemon = try DaemonExecutable.start(executable, paths: paths, environment: environment)
        let deadline = ContinuousClock.now + startTimeout
        var lastError: TransferError?
        while ContinuousClock.now < deadline {
            do {
                return try await DaemonConnection.connect(path: paths.socket, hello: hello)
            } catch  where error.code == .daemonUnavailable {
                lastError = error
            }
            if daemon.hasExited {
                throw TransferError(
                    .daemonUnavailable,
                    "sandboxd (\(executable), pid \(daemon.pid)) exited before listening on '\(paths.socket)'; its log is '\(paths.log)'.",
                    path: paths.socket)
            }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
        }
        throw TransferError(
            .daemonUnavailable,
            "sandboxd (pid \(daemon.pid)) did not listen on '\(paths.socket)' within \(startTimeout); its log is '\(paths.log)'.",
            path: paths.socket, cause: lastError)
    }
}

/// An exclusive `flock` on a file, taken without blocking a thread: tried every few milliseconds.
package final class SpawnLock: Sendable {
    private let fd: Int32

    /// Waits for the lock on `path` (created if needed, close-on-exec so no child inherits it).
    ///
    /// - Throws: ``TransferError/Code/daemonUnavailable`` when the file cannot be opened.
    package static func acquire(_ path: String) async throws(TransferError) -> SpawnLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TransferError(
                .daemonUnavailable,
                "Could not open sandboxd's start lock '\(path)': \(String(cString: strerror(errno))).", path: path)
        }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let message = String(cString: strerror(errno))
                close(fd)
                throw TransferError(
                    .daemonUnavailable, "Could not lock sandboxd's start lock '\(path)': \(message).", path: path)
            }
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                close(fd)
                throw TransferError(.cancelled, "Starting sandboxd was cancelled.")
            }
        }
        return SpawnLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    /// Releases the lock: closing the file releases it.
    deinit { close(fd) }
}
