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
    @Flag(help: "Print the running daemon's status and exit (1 when none runs).")
    var status = false
    @Flag(help: "Print the status as JSON.")
    var json = false
    @Flag(help: ArgumentHelp("Started by an app: new session, output to the log.", visibility: .hidden))
    var detach = false

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
        let environment = ProcessInfo.processInfo.environment
        let seconds = idleExit ?? environment["SANDBOXD_IDLE_EXIT"].flatMap(Double.init) ?? 30
        let options = DaemonOptions(
            paths: paths, idleExit: .milliseconds(Int64(seconds * 1000)),
            eventRetention: .milliseconds(Int64(eventRetention * 1000)))
        guard try await DaemonProcess.run(home: sandboxHome, options: options, detach: detach) else {
            FileHandle.standardError.write(Data("sandboxd: already running for '\(paths.socket)'\n".utf8))
            return
        }
    }
}
