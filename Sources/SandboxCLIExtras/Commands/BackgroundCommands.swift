import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxTransfer

/// The background side of `download` and `downloads`: tasks handed to `sandboxd`.
enum BackgroundCommands {
    /// The background session the CLI's downloads belong to.
    static let session = "cli"

    /// `download --background`: hands the download to the daemon and prints the task's id.
    static func submit(app: AppIdentifier, request: DownloadRequest, json: Bool) async throws {
        var configuration = BackgroundConfiguration.background(identifier: session)
        configuration.receivesEvents = false  // the events stay queued for `downloads --wait`
        let background = try await BackgroundSession(configuration: configuration, app: app, in: SandboxHome())
        let task: BackgroundTask
        do {
            task = try await background.downloadTask(with: request)
        } catch {
            await background.detach()
            throw error
        }
        await background.detach()
        if json {
            try Output.json(SubmittedLine(task: task.taskIdentifier, session: session, daemon: background.daemonPID))
        } else {
            try Output.line("\(task.taskIdentifier)")
        }
    }

    /// `downloads --wait`: attaches to the CLI's background session and prints each event until
    /// every task's final outcome (its `completed` event) has been printed, then the events the
    /// session had taken already. Exits with status 1, after a line on standard error naming them,
    /// when a task failed or was cancelled.
    ///
    /// - Throws: `daemon-unavailable` when `sandboxd` cannot be started or the
    ///   connection closes first; `ExitCode(1)` when a task failed.
    static func wait(app: AppIdentifier, json: Bool) async throws {
        let home = try SandboxHome()
        // Listed before attaching: a task completed then had its outcome printed already, or has
        // it in the queued events (BackgroundWait).
        let before = try await BackgroundSession.tasks(of: app, in: home, startingDaemon: true).filter {
            $0.sessionIdentifier == session
        }
        let background = try await BackgroundSession(
            configuration: .background(identifier: session), app: app, in: home)
        var wait = BackgroundWait(before: before)
        let (inputs, sink) = AsyncStream.makeStream(of: WaitInput.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            group.addTask {
                for await event in background.events { sink.yield(.event(event)) }
                sink.yield(.closed)
            }
            var finishing = false  // detached: what the session had taken (and acknowledged) is printed
            var graces = 0
            var grace: Int?  // the grace period running, by number
            for await input in inputs {
                switch input {
                case .event(let event):
                    try print(event, json: json)
                    guard wait.record(event), !finishing else { continue }
                case .graceEnded(let number):
                    guard number == grace, !finishing else { continue }
                    grace = nil
                case .closed:
                    guard finishing else {
                        throw SandboxError(
                            .daemonUnavailable, "The connection to sandboxd closed before every event was delivered.")
                    }
                    if let summary = wait.failureSummary {
                        StandardStreams.error("sandbox: \(summary)\n")
                        throw ExitCode(ExitStatus.failure)
                    }
                    return
                }
                var outstanding = wait.outstanding(try await background.taskList())
                if case .graceEnded = input {
                    for task in outstanding where task.completedInDaemon {
                        StandardStreams.error(
                            "sandbox: the events of background task \(task.task) did not arrive within \(Self.graceLimit); its outcome is sandboxd's record (another process attached to the session '\(session)' may have taken them).\n"
                        )
                        var line = DownloadJSONLine(event: "completed", task: task.task)
                        line.error = task.errorCode  // the daemon's record keeps the code only
                        try print(line, json: json)
                        wait.recordListed(task)
                    }
                    outstanding.removeAll(where: \.completedInDaemon)
                }
                if outstanding.isEmpty {
                    finishing = true
                    await background.detach()  // the event stream ends once the connection has closed
                } else if !outstanding.allSatisfy(\.completedInDaemon) {
                    grace = nil  // a task is still running: its events will come
                } else if grace == nil {
                    // Only events on their way are missing: they come at once, unless another
                    // process attached to the session took them before this wait did.
                    graces += 1
                    let number = graces
                    grace = number
                    group.addTask {
                        do { try await Task.sleep(for: Self.graceLimit) } catch { return }
                        sink.yield(.graceEnded(number))
                    }
                }
            }
        }
    }

    /// How long `wait` waits for the events of tasks the daemon lists as completed.
    private static let graceLimit = Duration.seconds(10)

    /// What `wait` handles, in one stream: the session's events and its grace period's end.
    private enum WaitInput: Sendable {
        case event(BackgroundEvent)
        case graceEnded(Int)
        case closed
    }

    private static func print(_ event: BackgroundEvent, json: Bool) throws {
        try print(line(for: event), json: json)
    }

    /// The line of `event`; a finished file still in the staging folder is claimed where it is.
    private static func line(for event: BackgroundEvent) throws -> DownloadJSONLine {
        guard case .didFinishDownloading(let task, let file) = event else {
            return DownloadJSONLine(event, task: event.task?.taskIdentifier)
        }
        // The CLI's tasks name a destination, so the daemon has moved the file there already;
        // a file still in the staging folder is claimed where it is, so it is not deleted.
        let path = file.movedPath ?? file.temporaryPath
        if file.movedPath == nil { try file.move(toPath: path, replacingExisting: true) }
        return DownloadJSONLine(event, task: task.taskIdentifier, finishedPath: path.description)
    }

    private static func print(_ line: DownloadJSONLine, json: Bool) throws {
        if json { return try Output.json(line) }
        guard line.event != "progress" else { return }
        var text = line.event
        if let task = line.task { text += " \(task)" }
        if let path = line.path { text += " \(path)" }
        if let error = line.error { text += " \(error)" }
        try Output.line(text)
    }

    private struct SubmittedLine: Encodable {
        var event = "submitted"
        var task: Int
        var session: String
        var daemon: Int32
    }
}
