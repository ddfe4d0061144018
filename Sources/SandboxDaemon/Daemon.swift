import Foundation
import Logging
import NIOCore
import Sandbox
import SandboxTransfer

/// The daemon's state: connected clients, the sessions it runs, and its queue. An actor, so each
/// message is handled whole before the next, and a session's events reach its client in order.
actor Daemon {
    let home: SandboxHome
    let options: DaemonOptions
    let queue: EventQueue
    let logger: Logger
    /// When tasks may transfer: connectivity and discretionary tasks.
    let scheduler: TransferScheduler
    private var clients: [Int: ClientHandle] = [:]
    private var nextClient = 1
    /// The client attached to each session.
    private var attached: [SessionKey: ClientHandle] = [:]
    var hosts: [SessionKey: SessionHost] = [:]
    private var lastActivity = ContinuousClock.now
    private(set) var stopping = false

    init(home: SandboxHome, options: DaemonOptions, queue: EventQueue, logger: Logger) {
        self.home = home
        self.options = options
        self.queue = queue
        self.logger = logger
        scheduler = TransferScheduler(logger: logger)
    }

    // MARK: Clients

    /// Admits a client whose hello passed the version check: sends its welcome and, when it
    /// attaches to a session, the session's queued events and then "all events delivered".
    ///
    /// - Throws: ``TransferError`` when the hello names another home, an app without a container
    ///   or a session name that is not one plain name.
    func admit(
        _ hello: ClientMessage.Hello, credentials: PeerCredentials,
        outbox: AsyncStream<DaemonMessage>.Continuation, channel: any Channel
    ) throws(TransferError) -> ClientHandle {
        guard hello.home == home.location else {
            throw TransferError(
                .invalidArgument,
                "This sandboxd serves the home '\(home.location)', not '\(hello.home)'; give each home its own XDG_RUNTIME_DIR.",
                path: hello.home)
        }
        if let app = hello.app {
            _ = try container(for: app)
            if let session = hello.session { try SessionHost.validate(session: session) }
        }
        let client = ClientHandle(
            id: nextClient, credentials: credentials, hello: hello, outbox: outbox, channel: channel)
        nextClient += 1
        clients[client.id] = client
        touch()
        client.send(.welcome(pid: getpid()))
        if let key = client.attachedSession {
            if let previous = attached[key] {
                previous.send(
                    .failure(TransferError(.sessionInUse, "Another process attached to the session '\(key)'.")))
                previous.finish()
            }
            attached[key] = client
            try host(for: key)
            for event in try queue.pending(for: key) { client.send(.event(event)) }
            client.send(.allEventsDelivered)
        }
        logger.info(
            "client \(client.id) connected: pid \(credentials.pid), \(hello.app ?? "-")/\(hello.session ?? "-")")
        return client
    }

    /// Forgets a client whose connection ended.
    func disconnected(_ client: ClientHandle) {
        clients[client.id] = nil
        touch()
        logger.info("client \(client.id) disconnected")
        guard let key = client.attachedSession, attached[key] === client else { return }
        attached[key] = nil
        // Events that completed while the app was attached but that it never acknowledged (it
        // was killed before it could) are ready now that it is gone: relaunch it for them, as a
        // completion in its absence would.
        do throws(TransferError) {
            if try !queue.pending(for: key).isEmpty { relaunchIfReady(key) }
        } catch {
            logger.error("The queued events of \(key) could not be read: \(error)")
        }
    }

    /// The client attached to `key`, if any.
    func attachedClient(_ key: SessionKey) -> ClientHandle? { attached[key] }

    // MARK: Requests

    /// Handles a request; answers go to the client's outbox.
    func handle(_ message: ClientMessage, from client: ClientHandle) {
        touch()
        let id = message.requestID ?? 0
        do throws(TransferError) {
            switch message.type {
            case .hello:
                throw TransferError(.protocolViolation, "A connection says hello once.")
            case .status:
                client.send(.status(try status(), requestID: id))
            case .list:
                guard let app = client.hello.app else {
                    throw TransferError(.invalidArgument, "Listing tasks needs a hello that names an app.")
                }
                client.send(.tasks(try listing(app: app, session: client.hello.session), requestID: id))
            case .submit:
                let key = try sessionKey(of: client)
                guard let request = message.request else {
                    throw TransferError(.protocolViolation, "A submit message carries no request.")
                }
                let task = try host(for: key).submit(request)
                client.send(.submitted(task: task, requestID: id))
            case .cancel:
                let key = try sessionKey(of: client)
                guard let task = message.taskID else {
                    throw TransferError(.protocolViolation, "A cancel message names no taskID.")
                }
                try host(for: key).cancel(task)
                client.send(.done(requestID: id))
            case .relaunch:
                let key = try sessionKey(of: client)
                guard let command = message.relaunch else {
                    throw TransferError(.protocolViolation, "A relaunch message carries no command.")
                }
                try queue.setRelaunch(command, for: key)
                client.send(.done(requestID: id))
            case .acknowledge:
                let key = try sessionKey(of: client)
                try queue.acknowledge(key, upTo: message.sequence ?? 0)
            }
        } catch {
            client.send(.failure(error, requestID: message.requestID))
        }
    }

    /// The stored tasks of `app`, with the live state and progress of those running now.
    private func listing(app: String, session: String?) throws(TransferError) -> [BackgroundTaskInfo] {
        try queue.tasks(app: app, session: session).map { stored in
            var info = stored.info
            if let (state, progress) = hosts[stored.key]?.liveState(of: info.taskID) {
                info.state = state
                info.bytesWritten = progress.totalBytesWritten
                info.expectedLength = progress.totalBytesExpectedToWrite
            }
            return info
        }
    }

    private func sessionKey(of client: ClientHandle) throws(TransferError) -> SessionKey {
        guard let app = client.hello.app, let session = client.hello.session else {
            throw TransferError(.invalidArgument, "This request needs a hello that names an app and a session.")
        }
        return SessionKey(app: app, session: session)
    }

    func status() throws(TransferError) -> DaemonStatus {
        DaemonStatus(
            pid: getpid(), protocolVersion: BackgroundProtocol.version, home: home.location, clients: clients.count,
            activeTasks: hosts.values.reduce(0) { $0 + $1.activeTaskCount }, queuedEvents: try queue.queuedEventCount())
    }

    // MARK: Sessions

    func container(for app: String) throws(TransferError) -> Container {
        do throws(SandboxError) {
            return try home.container(for: AppIdentifier(app))
        } catch {
            throw TransferError(
                TransferError.Code(error.code), "No container for '\(app)': \(error.message)", cause: error)
        }
    }

    /// The running session `key`, opened (and its unfinished tasks resumed) if it is not yet.
    @discardableResult
    func host(for key: SessionKey) throws(TransferError) -> SessionHost {
        if let host = hosts[key] { return host }
        let host = try SessionHost(key: key, container: try container(for: key.app), daemon: self)
        hosts[key] = host
        try host.resumeStoredTasks()
        return host
    }

    /// Opens every session with unfinished tasks: after a restart, their transfers continue at once.
    func resumeAll() {
        do throws(TransferError) {
            let keys = Set(try queue.tasks().filter { $0.info.state != .completed }.map(\.key))
            for key in keys { try host(for: key) }
        } catch {
            logger.error("Resuming the stored tasks failed: \(error)")
        }
    }

    /// Queues `event` of `key` (progress only goes to an attached client) and sends it to the
    /// attached client.
    func deliver(_ event: BackgroundEventRecord, for key: SessionKey) {
        guard !stopping else { return }
        var event = event
        if event.isQueued {
            do throws(TransferError) {
                event = try queue.append(event, for: key)
            } catch {
                logger.error("An event of \(key) could not be queued: \(error)")
            }
        }
        attached[key]?.send(.event(event))
        touch()
        if event.kind == .completed { relaunchIfReady(key) }
    }

    /// Processes started by ``relaunchIfReady(_:)``, by session.
    private var relaunched: [SessionKey: DetachedProcess] = [:]

    /// Runs `key`'s relaunch command when its events are ready: no task unfinished, no process
    /// attached, and the command not running already.
    private func relaunchIfReady(_ key: SessionKey) {
        guard attached[key] == nil, (hosts[key]?.activeTaskCount ?? 0) == 0,
            relaunched[key].map({ $0.hasExited }) ?? true
        else { return }
        do throws(TransferError) {
            guard let command = try queue.relaunch(for: key) else { return }
            var environment = ProcessInfo.processInfo.environment
            environment["SANDBOX_APP"] = key.app
            environment["SANDBOX_BACKGROUND_SESSION"] = key.session
            let process = try DetachedProcess(
                command.arguments, environment: environment, directory: try container(for: key.app).homeDirectory,
                code: .invalidArgument)
            relaunched[key] = process
            logger.info("relaunched \(key): pid \(process.pid), \(command.arguments)")
            let limit = max(0, command.timeLimitSeconds)
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) { process.signal(SIGKILL) }
        } catch {
            logger.error("The relaunch command of \(key) failed: \(error)")
        }
    }

    // MARK: Lifetime

    /// Drops events older than the retention limit: an app that never comes back does not keep
    /// them forever (its finished files stay in the staging folder, in `Library/Caches`).
    func expireOldEvents() {
        let (seconds, attoseconds) = options.eventRetention.components
        do throws(TransferError) {
            try queue.expire(olderThan: Double(seconds) + Double(attoseconds) / 1e18)
        } catch {
            logger.error("Expiring old events failed: \(error)")
        }
    }

    private func touch() { lastActivity = .now }

    /// Whether the daemon has had no client and no unfinished task for the idle limit.
    func isIdle() -> Bool {
        if !clients.isEmpty || hosts.values.contains(where: { $0.activeTaskCount > 0 }) {
            touch()
            return false
        }
        return ContinuousClock.now - lastActivity >= options.idleExit
    }

    /// Stops: every transfer pauses with its partial file and checkpoint kept (the next start
    /// continues them), clients are disconnected.
    func shutdown() async {
        stopping = true
        scheduler.stop()
        for host in hosts.values { await host.pause() }
        for client in clients.values { client.close() }
        logger.info("stopped")
    }
}
