import CSandboxShims
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
        guard let lock = try await takeLifetimeLock(paths.pidFile) else { return false }
        defer { withExtendedLifetime(lock) {} }
        // Two heaps for glibc's allocator, as the share server has: by default every thread that
        // allocates under contention gets one (up to 8 a core), and the buffers of a flood of
        // clients stay spread over them — 1,000 hostile connections raised the peak by 26–53 MiB
        // with the default, by 22–29 MiB with two (debug build, loaded machine).
        csb_limit_malloc_arenas(2)
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

    /// How long a new daemon waits for its pid file's lock: a daemon that was just killed holds it
    /// until the kernel has closed its files, a moment after it stopped being listed as running.
    static let lockPatience: Duration = .seconds(3)

    /// Takes the daemon's lock on its pid file, held while it runs (a second daemon for the same
    /// runtime folder finds it taken and exits), and writes this process's id; `nil` when another
    /// process still holds it after ``lockPatience``.
    ///
    /// - Throws: `daemon-unavailable` when the file cannot be opened or locked.
    static func takeLifetimeLock(_ path: String) async throws(SandboxError) -> FileLock? {
        let lock: FileLock
        let taken: Bool
        do {
            lock = try FileLock(hostPath: path)
            taken = try await lock.lock(.exclusive, until: .now + lockPatience)
        } catch {
            throw SandboxError(.daemonUnavailable, "Could not lock '\(path)': \(error.message)", path: path)
        }
        guard taken else { return nil }
        lock.replaceContents(with: Array("\(getpid())\n".utf8))
        return lock
    }
}
