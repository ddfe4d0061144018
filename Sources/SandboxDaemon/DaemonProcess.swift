import Foundation
import Glibc
import Logging
import Sandbox
import SandboxTransfer
import ServiceLifecycle
import UnixSignals

/// Runs `sandboxd` in this process: the lifetime lock, the log, the server under a
/// `ServiceGroup` that turns SIGTERM and SIGINT into a graceful stop.
public enum DaemonProcess {
    /// Runs until stopped or idle.
    ///
    /// - Parameters:
    ///   - home: the sandbox home whose apps' background sessions the daemon runs.
    ///   - options: where the socket, locks and log are, and the idle and retention limits.
    ///   - detach: started by an app: a session of its own (so the app's terminal and process
    ///     group do not reach it) and standard output and error appended to ``/SandboxTransfer/DaemonPaths/log``.
    /// - Returns: `false` when another daemon already runs for these paths (nothing was done).
    /// - Throws: ``/SandboxCore/SandboxError`` when the folders, the lock, the socket or the queue fail.
    public static func run(home: SandboxHome, options: DaemonOptions, detach: Bool) async throws -> Bool {
        let paths = options.paths
        try paths.prepare()
        if detach {
            setsid()
            let log = open(paths.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            if log >= 0 {
                dup2(log, STDOUT_FILENO)
                dup2(log, STDERR_FILENO)
                close(log)
            }
        }
        guard let lock = try await LifetimeLock.acquire(paths.pidFile) else { return false }
        defer { withExtendedLifetime(lock) {} }
        var logger = Logger(label: "sandboxd")
        logger.logLevel = .info
        let server = DaemonServer(home: home, options: options, logger: logger)
        // The server returning by itself (the idle exit) ends the group as a stop does.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        return true
    }
}

/// The daemon's lock on its pid file, held while it runs: a second daemon for the same runtime
/// folder finds it taken and exits.
final class LifetimeLock: Sendable {
    private let fd: Int32

    /// How long a new daemon waits for the lock: a daemon that was just killed holds it until the
    /// kernel has closed its files, a moment after it stopped being listed as running.
    static let patience: Duration = .seconds(3)

    /// Takes the lock and writes this process's id, or returns `nil` when another process still
    /// holds it after ``patience``.
    ///
    /// - Throws: `daemon-unavailable` when the file cannot be opened.
    static func acquire(_ path: String) async throws(SandboxError) -> LifetimeLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw SandboxError(
                .daemonUnavailable, "Could not open '\(path)': \(String(cString: strerror(errno))).", path: path)
        }
        let deadline = ContinuousClock.now + patience
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard ContinuousClock.now < deadline else {
                close(fd)
                return nil
            }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                close(fd)
                return nil
            }
        }
        let text = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return LifetimeLock(fd: fd)
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }
}
