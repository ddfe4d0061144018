import Foundation
import Logging
import Sandbox
import SandboxCore
import Synchronization

/// A background download session: its tasks run in `sandboxd`, which keeps downloading when the
/// app exits, is killed or crashes, and hands every event back.
///
/// Making the session connects to the daemon (starting it if needed) and attaches to the session
/// ``BackgroundConfiguration/identifier``: the events queued while no app was attached arrive
/// first, in their original order, then ``TransferEvent/didFinishEvents``, then live events.
/// Each event is acknowledged once the delegate (or, without one, the event stream) has taken it,
/// and is never delivered again. One process is attached to a session at a time; a newer one
/// replaces the older.
public final class BackgroundSession: Sendable {
    /// The session's configuration.
    public let configuration: BackgroundConfiguration
    /// The app's container, where finished files are delivered.
    public let container: Container
    /// Every event, in order. Iterate it once; unread events are buffered.
    public let events: AsyncStream<BackgroundEvent>
    /// The daemon's process identifier.
    public var daemonPID: Int32 { connection.daemonPID }
    /// Where the session reports what it handles on its own: a finished file the daemon could not
    /// hand over, an event naming a file that is not in the container. Discards everything unless
    /// given one (``init(configuration:app:in:delegate:logger:)``).
    public let logger: Logger

    let delegate: (any BackgroundSessionDelegate)?
    private let connection: DaemonConnection
    private let tasks = Mutex<[Int: BackgroundTask]>([:])
    private let eventSink: AsyncStream<BackgroundEvent>.Continuation
    private let reader = Mutex<Task<Void, Never>?>(nil)
    /// Whether an event is being handled (delivered and not yet acknowledged), and whether the
    /// session is detaching (no more deliveries).
    private let delivery = Mutex((handling: false, detaching: false))
    /// Why the finished file of a task was refused, by task: its completion carries the error.
    private let refusedFiles = Mutex<[Int: SandboxError]>([:])

    /// Attaches to the background session `configuration.identifier` of `app` in `home`;
    /// `logger` receives what the session handles on its own (see ``logger``).
    ///
    /// - Throws: the core's code when the app has no container;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for an identifier that is not one plain name;
    ///   `daemon-unavailable` when `sandboxd` cannot be reached or started;
    ///   ``SandboxCore/SandboxError/Code/protocolVersion`` when it speaks another protocol version.
    public init(
        configuration: BackgroundConfiguration, app: AppIdentifier, in home: SandboxHome,
        delegate: (any BackgroundSessionDelegate)? = nil, logger: Logger = DownloadSession.disabledLogger
    ) async throws(SandboxError) {
        self.configuration = configuration
        self.delegate = delegate
        self.logger = logger
        do throws(SandboxError) {
            container = try home.container(for: app)
        } catch {
            throw .fileSystem(error, doing: "open the container of '\(app.rawValue)'")
        }
        let paths = configuration.daemonPaths ?? DaemonPaths(home: home)
        let hello = ClientMessage.Hello(
            app: container.identifier.rawValue, session: configuration.identifier, home: paths.home,
            attach: configuration.receivesEvents)
        connection = try await DaemonLauncher.connect(
            paths: paths, hello: hello, startIfNeeded: configuration.startsDaemon)
        (events, eventSink) = AsyncStream.makeStream(of: BackgroundEvent.self)
        let messages = connection.messages
        reader.withLock { reader in
            reader = Task { [weak self] in
                for await message in messages {
                    guard let self else { return }
                    await self.receive(message)
                }
                self?.eventSink.finish()
            }
        }
    }

    deinit {
        reader.withLock { $0?.cancel() }
        connection.close()
        eventSink.finish()
    }

    // MARK: Tasks

    /// Starts a background download of `url` in the daemon.
    ///
    /// - Throws: as ``downloadTask(with:)-(DownloadRequest)``.
    public func downloadTask(with url: URL) async throws(SandboxError) -> BackgroundTask {
        try await downloadTask(with: DownloadRequest(url: url))
    }

    /// Starts a background download of `request` in the daemon (it runs at once: there is no
    /// suspended state for a task the app does not own).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidURL`` unless the URL is absolute http(s);
    ///   `daemon-unavailable` when the daemon connection is gone.
    public func downloadTask(with request: DownloadRequest) async throws(SandboxError) -> BackgroundTask {
        guard DownloadRequest.isSupported(request.url) else {
            throw SandboxError(
                .invalidURL, "'\(request.url.absoluteString)' is not an absolute http or https URL.",
                url: request.url.absoluteString)
        }
        let submitted = BackgroundRequest(
            request, waitsForConnectivity: configuration.waitsForConnectivity,
            isDiscretionary: configuration.isDiscretionary)
        let answer = try await connection.request { .submit(submitted, id: $0) }
        guard let id = answer.taskID else {
            throw SandboxError(.protocolViolation, "sandboxd made a task without saying its identifier.")
        }
        return task(
            DownloadTaskSummary.Wire(
                session: configuration.identifier, taskID: id, url: request.url.absoluteString, state: .running,
                bytesWritten: 0, expectedLength: nil, path: nil, errorCode: nil))
    }

    /// The session's unfinished tasks, as live objects (`getTasksWithCompletionHandler`): the same
    /// objects the events name.
    ///
    /// - Throws: `daemon-unavailable` when the daemon connection is gone.
    public func allTasks() async throws(SandboxError) -> [BackgroundTask] {
        try await listed().filter { $0.state != .completed }.map(task)
    }

    /// Every task the daemon keeps for this session, finished ones included.
    ///
    /// - Throws: `daemon-unavailable` when the daemon connection is gone.
    public func taskList() async throws(SandboxError) -> [DownloadTaskSummary] {
        try await listed().map(DownloadTaskSummary.init)
    }

    /// The session's tasks as the daemon lists them, page by page.
    private func listed() async throws(SandboxError) -> [DownloadTaskSummary.Wire] {
        var tasks: [DownloadTaskSummary.Wire] = []
        try await connection.forEachTaskPage { page in tasks += page }
        return tasks
    }

    /// Registers the command `sandboxd` runs when this session's events are ready (its last task
    /// completed) and no process is attached — iOS relaunching an app in the background (the
    /// seed's case 3). It runs **confined** exactly as `sandbox run` runs a program (the app's
    /// verified bundle, its Landlock ruleset, no network if this app's connection has none, an
    /// environment built from scratch — nothing of the daemon's), in the container's home, with
    /// `SANDBOX_APP` and `SANDBOX_BACKGROUND_SESSION` set and a broker for daemon connections as
    /// descriptor 3 (`SANDBOX_DAEMON_BROKER_FD`), and is killed after `timeLimit` (at most 600 s);
    /// it should re-create the session to receive the events. The program must be one the sandbox
    /// lets the app execute: in its bundle or beneath the system's program folders. An empty
    /// `arguments` removes the registration.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the program is not an absolute path or
    ///   the time limit is out of range; `daemon-unavailable` when the daemon
    ///   connection is gone.
    public func registerRelaunch(arguments: [String], timeLimit: Duration = .seconds(30)) async throws(SandboxError) {
        if let program = arguments.first, !program.hasPrefix("/") {
            throw SandboxError(.invalidArgument, "The relaunch program '\(program)' must be an absolute path.")
        }
        let command = RelaunchCommand(arguments: arguments, timeLimitSeconds: timeLimit.secondsAsDouble)
        _ = try await connection.request { .relaunch(command, id: $0) }
    }

    /// The tasks the daemon keeps for every background session of `app`, without attaching to any.
    ///
    /// - Parameters:
    ///   - app: the app whose tasks are listed.
    ///   - home: the device home the app is installed in (the daemon's socket is found from it).
    ///   - startingDaemon: whether to start `sandboxd` when it is not running (its unfinished
    ///     tasks then continue); without it, a stopped daemon lists nothing.
    /// - Throws: `daemon-unavailable` when the daemon is not running and may
    ///   not be started, or cannot be reached.
    public static func tasks(
        of app: AppIdentifier, in home: SandboxHome, startingDaemon: Bool = false
    ) async throws(SandboxError) -> [DownloadTaskSummary] {
        var tasks: [DownloadTaskSummary] = []
        try await forEachTaskPage(of: app, in: home, startingDaemon: startingDaemon) { page in tasks += page }
        return tasks
    }

    /// The tasks the daemon keeps for every background session of `app`, a page at a time (at
    /// most 1,000 tasks a page), in order — by session, then task identifier — without attaching
    /// to any: `body` gets each page as it arrives, and no more than a page is held at once.
    ///
    /// - Parameters:
    ///   - app: the app whose tasks are listed.
    ///   - home: the device home the app is installed in (the daemon's socket is found from it).
    ///   - startingDaemon: whether to start `sandboxd` when it is not running.
    ///   - body: called with each page; what it throws ends the listing.
    /// - Throws: `daemon-unavailable` when the daemon is not running and may not be started, or
    ///   cannot be reached; ``SandboxCore/SandboxError/Code/protocolViolation`` when its pages do
    ///   not advance; what `body` throws.
    public static func forEachTaskPage(
        of app: AppIdentifier, in home: SandboxHome, startingDaemon: Bool = false,
        _ body: ([DownloadTaskSummary]) async throws(SandboxError) -> Void
    ) async throws(SandboxError) {
        let paths = DaemonPaths(home: home)
        let hello = ClientMessage.Hello(app: app.rawValue, session: nil, home: paths.home, attach: false)
        let connection = try await DaemonLauncher.connect(paths: paths, hello: hello, startIfNeeded: startingDaemon)
        defer { connection.close() }
        try await connection.forEachTaskPage { page throws(SandboxError) in
            try await body(page.map(DownloadTaskSummary.init))
        }
    }

    /// Detaches from the daemon: its tasks go on, and their events are queued for the next attach.
    /// Waits until the event being handled (if any) is acknowledged, so that an event whose
    /// delegate method returned is never delivered again; later events are not delivered.
    public func detach() async {
        while true {
            let busy = delivery.withLock { delivery in
                delivery.detaching = true
                return delivery.handling
            }
            guard busy else { break }
            do { try await Task.sleep(for: .milliseconds(1)) } catch { break }
        }
        await connection.finish()
    }

    func cancel(_ id: Int) async throws(SandboxError) {
        _ = try await connection.request { .cancel(task: id, id: $0) }
    }

    /// The live object of task `info.taskID`, made on first sight.
    private func task(_ info: DownloadTaskSummary.Wire) -> BackgroundTask {
        tasks.withLock { tasks in
            if let task = tasks[info.taskID] { return task }
            let task = BackgroundTask(info: info, session: self)
            tasks[info.taskID] = task
            return task
        }
    }

    // MARK: Events

    private func receive(_ message: DaemonMessage) async {
        switch message.type {
        case .allEventsDelivered:
            eventSink.yield(.didFinishEvents)
            delegate?.backgroundSessionDidFinishEvents(self)
        case .event:
            guard let record = message.event else {
                logger.error(
                    "sandboxd sent an event message without its event (session '\(configuration.identifier)'); it is ignored. The daemon is damaged or not this version's: restart it, and check its log."
                )
                return
            }
            let detaching = delivery.withLock { delivery in
                if !delivery.detaching { delivery.handling = true }
                return delivery.detaching
            }
            guard !detaching else { return }  // stays queued for the next attach
            defer { delivery.withLock { $0.handling = false } }
            deliver(record)
            guard record.sequence > 0 else { return }
            do throws(SandboxError) {
                try await connection.send(.acknowledge(record.sequence))
            } catch {
                // The connection is gone: the event stays queued and comes again on the next attach.
            }
        default:
            break
        }
    }

    private func deliver(_ event: BackgroundEventRecord) {
        var record = event
        if record.kind == .completed, let refused = refusedFiles.withLock({ $0.removeValue(forKey: record.taskID) }),
            record.errorCode == nil
        {
            // The download succeeded but its file was not handed over: the task did not succeed.
            record.errorCode = refused.code.description
            record.errorMessage = refused.message
        }
        let task = task(
            DownloadTaskSummary.Wire(
                session: configuration.identifier, taskID: record.taskID, url: "", state: .running, bytesWritten: 0,
                expectedLength: nil, path: nil, errorCode: nil))
        task.apply(record)
        switch record.kind {
        case .resumed:
            eventSink.yield(
                .didResume(task, atOffset: record.offset ?? 0, expectedTotalBytes: record.expectedTotalBytes))
        case .restarted:
            eventSink.yield(.didRestart(task, reason: record.reason))
        case .progress:
            guard let progress = record.progress else { return }
            eventSink.yield(.didWriteData(task, progress))
            delegate?.backgroundSession(self, downloadTask: task, didWriteData: progress)
        case .retry:
            eventSink.yield(
                .willRetry(
                    task, attempt: record.attempt ?? 0, delay: .milliseconds(record.delayMilliseconds ?? 0),
                    error: record.error))
        case .waitingForConnectivity:
            eventSink.yield(.taskIsWaitingForConnectivity(task))
            delegate?.backgroundSession(self, taskIsWaitingForConnectivity: task)
        case .finished:
            guard let file = finishedFile(record) else { return }
            eventSink.yield(.didFinishDownloading(task, file))
            if let delegate {
                delegate.backgroundSession(self, downloadTask: task, didFinishDownloadingTo: file)
                file.discardIfNotMoved()
            }
        case .completed:
            tasks.withLock { _ = $0.removeValue(forKey: record.taskID) }
            eventSink.yield(.didComplete(task, error: record.error))
            delegate?.backgroundSession(self, task: task, didCompleteWithError: record.error)
        }
    }

    /// The finished file an event names: in the staging folder (to be moved), or already at the
    /// request's destination. `nil` when there is none to hand over — the daemon could not place
    /// it (its log says why), or named a path that is not one in the container: then nothing is
    /// read, the task's completion carries a ``SandboxCore/SandboxError/Code/protocolViolation`` naming the
    /// path, and ``logger`` records it.
    private func finishedFile(_ record: BackgroundEventRecord) -> DownloadedFile? {
        guard let text = record.path else {
            logger.warning(
                "sandboxd could not place the finished file of background task \(record.taskID) of session '\(configuration.identifier)'; its log says why. The task completes without a file."
            )
            return nil
        }
        let path: ContainerPath
        do throws(SandboxError) {
            path = try ContainerPath(text)
        } catch {
            let refused = SandboxError(
                .protocolViolation,
                "sandboxd named '\(text)' as the finished file of background task \(record.taskID) of session '\(configuration.identifier)', which is not a path in the container of '\(container.identifier.rawValue)' (\(error.message)); nothing was read from it. The daemon is damaged or not this version's: restart it, and check its log.",
                path: text, underlying: .wrapping(error))
            logger.handled(refused, "The task completes with this error.", level: .error)
            refusedFiles.withLock { $0[record.taskID] = refused }
            return nil
        }
        let staged = text.hasPrefix(Self.stagingFolder + "/")
        return DownloadedFile(
            container: container, temporaryPath: path,
            suggestedFilename: record.suggestedFilename ?? path.lastName?.description ?? SuggestedFilename.fallback,
            byteCount: record.byteCount ?? 0, digest: record.digest, movedTo: staged ? nil : path)
    }

    /// Where the daemon stages finished files, relative to the container's home.
    static let stagingFolder = "Library/Caches/com.sandbox.background"
}
