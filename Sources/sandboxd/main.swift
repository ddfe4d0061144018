import ArgumentParser
import Foundation
import Sandbox
import SandboxDaemon
import SandboxTransfer

/// `sandboxd`: the per-user background-transfer daemon. Apps start it on demand; it exits by itself
/// when idle. Parsing and printing only: the daemon is `SandboxDaemon`.
@main
struct SandboxDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandboxd",
        abstract: "Run background downloads for the apps of a sandbox home.",
        discussion: """
            Started on demand by the first background session; listens on $XDG_RUNTIME_DIR/sandbox/sandboxd.sock \
            (the home's Device/ folder when XDG_RUNTIME_DIR is unset), logs to Device/sandboxd/sandboxd.log, \
            and stops on SIGTERM (transfers pause with their checkpoints) or after --idle-exit seconds with \
            no client and no transfer.
            """)

    @Option(help: "The sandbox home (default: $SANDBOX_HOME, else the platform's data folder).")
    var home: String?
    @Option(help: "The folder of the socket and locks (default: $XDG_RUNTIME_DIR/sandbox).")
    var runtimeDirectory: String?
    @Option(help: "Seconds without clients or transfers before exiting (default: $SANDBOXD_IDLE_EXIT, else 30).")
    var idleExit: Double?
    @Option(help: "Seconds queued events are kept for an app that does not come back (default 7 days).")
    var eventRetention: Double = 7 * 86_400
    @Option(
        help: ArgumentHelp(
            "Connections open at once (default \(ConnectionLimits.standard.maximumConnections)).", visibility: .hidden))
    var maxConnections = ConnectionLimits.standard.maximumConnections
    @Option(
        help: ArgumentHelp(
            "Connections open at once from one process "
                + "(default \(ConnectionLimits.standard.maximumConnectionsPerProcess)).",
            visibility: .hidden))
    var maxConnectionsPerProcess = ConnectionLimits.standard.maximumConnectionsPerProcess
    @Flag(help: "Print the running daemon's status and exit (1 when none runs).")
    var status = false
    @Flag(help: "Print the status as JSON.")
    var json = false
    @Flag(help: ArgumentHelp("Started by an app: new session, output to the log.", visibility: .hidden))
    var detach = false

    /// The longest time an option takes: ten years (a `Duration` of more would not overflow, but
    /// nobody means it, and `inf` or `1e300` is a typo).
    static let maximumSeconds: Double = 10 * 365 * 86_400
    static let connectionRange = 1...65_536

    func validate() throws {
        if let idleExit { _ = try Self.duration(idleExit, of: "--idle-exit") }
        _ = try Self.duration(eventRetention, of: "--event-retention")
        for (name, value) in [
            ("--max-connections", maxConnections), ("--max-connections-per-process", maxConnectionsPerProcess),
        ]
        where !Self.connectionRange.contains(value) {
            throw ValidationError(
                "\(name) takes a number of connections from \(Self.connectionRange.lowerBound) to \(Self.connectionRange.upperBound), not \(value)."
            )
        }
    }

    /// `seconds` as a duration.
    ///
    /// - Throws: `ValidationError` (exit 64) naming `name` and the accepted range when `seconds` is
    ///   negative, not a number, infinite or past ``maximumSeconds``.
    static func duration(_ seconds: Double, of name: String) throws -> Duration {
        guard (0...maximumSeconds).contains(seconds) else {
            throw ValidationError(
                "\(name) takes seconds from 0 to \(Int(maximumSeconds)) (ten years), not \(seconds).")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The idle limit: the option, else `SANDBOXD_IDLE_EXIT`, else 30 seconds.
    ///
    /// - Throws: `ValidationError` (exit 64) naming the variable when it is not a number of seconds
    ///   in the accepted range.
    func idleLimit(environment: [String: String]) throws -> Duration {
        if let idleExit { return try Self.duration(idleExit, of: "--idle-exit") }
        guard let text = environment["SANDBOXD_IDLE_EXIT"] else { return .seconds(30) }
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError(
                "SANDBOXD_IDLE_EXIT takes seconds from 0 to \(Int(Self.maximumSeconds)) (ten years), not '\(text)'.")
        }
        return try Self.duration(seconds, of: "SANDBOXD_IDLE_EXIT")
    }

    func run() async throws {
        let sandboxHome = try SandboxHome(location: home)
        var paths = DaemonPaths(home: sandboxHome)
        if let runtimeDirectory { paths.runtimeDirectory = runtimeDirectory }
        if status {
            let status: DaemonStatus
            do {
                status = try await DaemonStatus.query(paths: paths)
            } catch {
                FileHandle.standardError.write(Data("sandboxd: not running (\(error.message))\n".utf8))
                throw ExitCode(1)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
            } else {
                print(
                    "sandboxd pid \(status.pid), protocol \(status.protocolVersion), home \(status.home): \(status.clients) clients, \(status.activeTasks) active tasks, \(status.queuedEvents) queued events"
                )
            }
            return
        }
        var limits = ConnectionLimits.standard
        limits.maximumConnections = maxConnections
        limits.maximumConnectionsPerProcess = maxConnectionsPerProcess
        let options = DaemonOptions(
            paths: paths, idleExit: try idleLimit(environment: ProcessInfo.processInfo.environment),
            eventRetention: try Self.duration(eventRetention, of: "--event-retention"), limits: limits)
        guard try await DaemonProcess.run(home: sandboxHome, options: options, detach: detach) else {
            FileHandle.standardError.write(Data("sandboxd: already running for '\(paths.socket)'\n".utf8))
            return
        }
    }
}
