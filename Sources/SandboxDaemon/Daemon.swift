import Foundation
import Logging
import NIOCore
import Sandbox
import SandboxCore
import SandboxTransfer

/// The daemon's state: connected clients, the sessions it runs, and its queue. An actor, so each
/// message is handled whole before the next, and a session's events reach its client in order.
///
/// What the daemon writes to its queue goes through the queue's group commit, and everything it
/// sends to a client goes out after the steps asked for before it (``send(_:to:)``): an answer or
/// an event leaves only once what it reports is committed, and messages keep the actor's order.
actor Daemon {
    let home: SandboxHome
    let options: DaemonOptions
    let queue: EventQueue
    let logger: Logger
    /// When tasks may transfer: connectivity and discretionary tasks.
    let scheduler: TransferScheduler
    /// The HTTP client of every session the daemon hosts (one connection pool, not one a session).
    let httpClient = SharedDownloadClient(SessionHost.configuration)
    private var clients: [Int: ClientHandle] = [:]
    private var nextClient = 1
    /// The client attached to each session.
    var attached: [SessionKey: ClientHandle] = [:]
    var hosts: [SessionKey: SessionHost] = [:]
    private var lastActivity = ContinuousClock.now
    private(set) var stopping = false
    /// The daemon's registration as a live user of each app it has sessions or queued events for
    /// (see Daemon+Coordination.swift).
    var presences: [String: AppPresence] = [:]
    /// The apps whose sessions are suspended for a lifecycle operation, with the operation.
    var suspended: [String: CoordinatedOperation] = [:]

    init(home: SandboxHome, options: DaemonOptions, queue: EventQueue, logger: Logger) {
        self.home = home
        self.options = options
        self.queue = queue
        self.logger = logger
        scheduler = TransferScheduler(logger: logger)
    }

    // MARK: Clients

    /// Accepts the system's binding of a new connection to an app (``/Sandbox/DaemonBroker``
    /// sends it before handing the connection to a confined program).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the app has no container or its identifier is malformed.
    func bind(_ binding: AppBinding, credentials: PeerCredentials) throws(SandboxError) -> AppBinding {
        _ = try container(for: binding.app)
        logger.info(
            "pid \(credentials.pid): connection bound to \(binding.app)\(binding.allowsNetwork ? "" : " (no network)")")
        return binding
    }

    /// Admits a client whose hello passed the version check: sends its welcome and, when it
    /// attaches to a session, the session's queued events and then "all events delivered".
    ///
    /// A connection the system bound to an app (`binding`) acts for that app only: a hello naming
    /// another is refused, and one naming none acts for the bound app. An unbound connection comes
    /// from a process that is not confined (a confined one cannot open a connection), which acts
    /// for the app its hello names.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the hello names another home, another app than the
    ///   binding, an app without a container or a session name that is not one plain name.
    func admit(
        _ hello: ClientMessage.Hello, binding: AppBinding?, credentials: PeerCredentials,
        outbox: Outbox, channel: any Channel
    ) throws(SandboxError) -> ClientHandle {
        var hello = hello
        let effective: AppBinding?
        if let binding {
            guard hello.app == nil || hello.app == binding.app else {
                throw SandboxError(
                    SandboxError.Code.permissionDenied,
                    "This connection was bound to '\(binding.app)' by the app's launcher; it cannot act for '\(hello.app ?? "")'."
                )
            }
            hello.app = binding.app
            effective = binding
        } else {
            guard hello.home == home.location else {
                throw SandboxError(
                    .invalidArgument,
                    "This sandboxd serves the home '\(home.location)', not '\(hello.home)'; give each home its own XDG_RUNTIME_DIR.",
                    path: hello.home)
            }
            effective = hello.app.map { AppBinding(app: $0, allowsNetwork: true) }
        }
        if let app = hello.app {
            _ = try container(for: app)
            if let session = hello.session { try SessionHost.validate(session: session) }
        }
        let client = ClientHandle(
            id: nextClient, credentials: credentials, hello: hello, binding: effective, outbox: outbox,
            channel: channel)
        nextClient += 1
        clients[client.id] = client
        touch()
        send(.welcome(pid: getpid()), to: client)
        if let key = client.attachedSession {
            if let previous = attached[key] {
                send(
                    .failure(SandboxError(.sessionInUse, "Another process attached to the session '\(key)'.")),
                    to: previous)
                queue.writes.after { previous.finish() }
            }
            attached[key] = client
            try host(for: key)
            // Read after every step asked for so far: the events queued before this attach come
            // from the replay, which reads on until none is left; live sends to this client wait
            // for its end (``ClientHandle/sendLive(_:)``), so the app gets every event once, in order.
            client.setReplaying(true)
            replay(key, to: client, after: 0)
        }
        logger.info(
            "client \(client.id) connected: pid \(credentials.pid), \(hello.app ?? "-")/\(hello.session ?? "-")")
        return client
    }

    /// The clients acting for `app`.
    func clients(of app: String) -> [ClientHandle] {
        clients.values.filter { $0.hello.app == app }
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
        queue.writes.commit(
            "read queued events", { db in try EventQueue.hasPending(db, for: key) },
            then: { [self, logger] result in
                switch result {
                case .success(let waiting): if waiting { Task { await self.relaunchIfReady(key) } }
                case .failure(let error): logger.error("The queued events of \(key) could not be read: \(error)")
                }
            })
    }

    /// How many queued events a re-attach reads at a time.
    static let replayPage = 512
    /// How many bytes may still wait for the client when the replay reads its next page: the
    /// replay holds about a page in memory, whatever the queue holds, and stays within the
    /// client's outbox limits.
    static let replayBacklog = 32 << 10

    /// Sends `key`'s events after `sequence` to `client`, a page at a time, each page read in the
    /// queue's commit order once the client has taken most of the one before; then "all events
    /// delivered", and live events go to the client again. Stops when the connection ends.
    private nonisolated func replay(_ key: SessionKey, to client: ClientHandle, after sequence: Int64) {
        let (logger, page) = (logger, Self.replayPage)
        queue.writes.commit(
            "read queued events",
            { db in try EventQueue.page(db, for: key, after: sequence, limit: page, logger: logger) },
            then: { [self] result in
                switch result {
                case .success(let read):
                    for event in read.events { client.send(.event(event)) }
                    guard read.rows < page else {
                        client.whenDrained(to: Self.replayBacklog) { open in
                            if open { self.replay(key, to: client, after: read.last) }
                        }
                        return
                    }
                    // In commit order: the events of later steps are sent live, after these.
                    client.setReplaying(false)
                    client.send(.allEventsDelivered)
                case .failure(let error):
                    client.send(.failure(error))
                    client.finish()
                }
            })
    }

    /// Sends `message` to `client` once every queue step asked for before it has finished.
    private func send(_ message: DaemonMessage, to client: ClientHandle) {
        queue.writes.after { client.send(message) }
    }

    /// The client attached to `key`, if any.
    func attachedClient(_ key: SessionKey) -> ClientHandle? { attached[key] }

    // MARK: Requests

    /// Handles a request; answers go to the client's outbox.
    func handle(_ message: ClientMessage, from client: ClientHandle) {
        touch()
        let id = message.requestID ?? 0
        do throws(SandboxError) {
            switch message.type {
            case .hello:
                throw SandboxError(.protocolViolation, "A connection says hello once.")
            case .bind:
                throw SandboxError(.protocolViolation, "A connection is bound once, before its hello.")
            case .status:
                let status = status()
                queue.writes.commit("count events", EventQueue.queuedEventCount) { result in
                    Self.answer(client, id, result.map { count in .status(status(count), requestID: id) })
                }
            case .list:
                let (listing, hosts) = (try TaskListing(message, hello: client.hello), hosts)
                queue.writes.commit(
                    "list tasks", { [logger] db in try listing.page(db, logger: logger) },
                    then: { result in
                        Self.answer(
                            client, id,
                            result.flatMap { page in
                                guard listing.limit != nil || page.next == nil else {
                                    return .failure(TaskListing.needsPages)
                                }
                                return .success(
                                    .tasks(Self.listing(page.tasks, hosts: hosts), next: page.next, requestID: id))
                            })
                    })
            case .submit:
                let key = try sessionKey(of: client)
                guard let request = message.request else {
                    throw SandboxError(.protocolViolation, "A submit message carries no request.")
                }
                try checkNetwork(of: client)
                try host(for: key).submit(request) { result in
                    Self.answer(client, id, result.map { .submitted(task: $0, requestID: id) })
                }
            case .cancel:
                let key = try sessionKey(of: client)
                guard let task = message.taskID else {
                    throw SandboxError(.protocolViolation, "A cancel message names no taskID.")
                }
                try host(for: key).cancel(task) { result in
                    Self.answer(client, id, result.map { .done(requestID: id) })
                }
            case .relaunch:
                let key = try sessionKey(of: client)
                guard var requested = message.relaunch else {
                    throw SandboxError(.protocolViolation, "A relaunch message carries no command.")
                }
                try requested.validate()
                // What the relaunched program may do is the registering connection's, not the message's.
                requested.allowsNetwork = client.binding?.allowsNetwork ?? false
                let command = requested
                let body = try EventQueue.json(command, "relaunch command")
                queue.writes.commit(
                    "register a relaunch command",
                    { db in try EventQueue.setRelaunch(db, command, body: body, for: key) },
                    then: { result in Self.answer(client, id, result.map { .done(requestID: id) }) })
            case .acknowledge:
                let key = try sessionKey(of: client)
                let sequence = message.sequence ?? 0
                queue.writes.commit("acknowledge events") { db in try EventQueue.acknowledge(db, key, upTo: sequence) }
            }
        } catch {
            send(.failure(error, requestID: message.requestID), to: client)
        }
    }

    /// Sends `result`'s answer, or its failure, to request `id` of `client`.
    private static func answer(_ client: ClientHandle, _ id: Int, _ result: Result<DaemonMessage, SandboxError>) {
        switch result {
        case .success(let message): client.send(message)
        case .failure(let error): client.send(.failure(error, requestID: id))
        }
    }

    /// `stored`, with the live state and progress of the tasks running now.
    private static func listing(
        _ stored: [EventQueue.StoredTask], hosts: [SessionKey: SessionHost]
    ) -> [DownloadTaskSummary.Wire] {
        stored.map { stored in
            var info = stored.info
            if let (state, progress) = hosts[stored.key]?.liveState(of: info.taskID) {
                info.state = state
                info.bytesWritten = progress.totalBytesWritten
                info.expectedLength = progress.totalBytesExpectedToWrite
            }
            return info
        }
    }

    /// Refuses to download for an app whose confinement blocks the network: what a confined app
    /// may ask the daemon for is no more than what it could do itself.
    private func checkNetwork(of client: ClientHandle) throws(SandboxError) {
        guard let binding = client.binding, !binding.allowsNetwork else { return }
        throw SandboxError(
            SandboxError.Code.permissionDenied,
            "'\(binding.app)' runs without network access: sandboxd does not download for it. Launch it with network access to use background downloads."
        )
    }

    private func sessionKey(of client: ClientHandle) throws(SandboxError) -> SessionKey {
        guard let app = client.hello.app, let session = client.hello.session else {
            throw SandboxError(.invalidArgument, "This request needs a hello that names an app and a session.")
        }
        return SessionKey(app: app, session: session)
    }

    /// The daemon's status, given the number of queued events.
    func status() -> @Sendable (Int) -> DaemonStatus {
        let (home, clients, active) = (home.location, clients.count, hosts.values.reduce(0) { $0 + $1.activeTaskCount })
        let resident = hosts.values.reduce(0) { $0 + $1.residentTaskCount }
        return { queued in
            var status = DaemonStatus(
                pid: getpid(), protocolVersion: BackgroundProtocol.version, home: home, clients: clients,
                activeTasks: active, queuedEvents: queued)
            status.residentTasks = resident
            return status
        }
    }

    // MARK: Sessions

    func container(for app: String) throws(SandboxError) -> Container {
        do throws(SandboxError) {
            return try home.container(for: AppIdentifier(app))
        } catch {
            throw SandboxError(
                error.code, "No container for '\(app)': \(error.message)", underlying: .wrapping(error))
        }
    }

    /// The running session `key`, opened (and its unfinished tasks resumed) if it is not yet.
    ///
    /// - Throws: ``/Sandbox/SandboxError/Code/containerInUse`` while a lifecycle operation on the
    ///   app is under way; the errors of opening the container and the session.
    @discardableResult
    func host(for key: SessionKey) throws(SandboxError) -> SessionHost {
        if let operation = suspended[key.app] {
            throw SandboxError(
                .containerInUse,
                "The containers of '\(key.app)' are being changed (\(operation.rawValue)); try again when that ends.",
                path: key.app)
        }
        if let host = hosts[key] { return host }
        let host = try SessionHost(key: key, container: try container(for: key.app), daemon: self)
        hosts[key] = host
        present(key.app)
        try host.resumeStoredTasks()
        return host
    }

    /// Opens every session with unfinished tasks: after a restart, their transfers continue at once.
    /// Registers as a live user of every app with queued events too.
    func resumeAll() {
        do throws(SandboxError) {
            let keys = Set(try queue.tasks().filter { $0.info.state != .completed }.map(\.key))
            for key in keys { try host(for: key) }
            for app in try queue.appsWithEvents() { present(app) }
        } catch {
            logger.error("Resuming the stored tasks failed: \(error)")
        }
    }

    /// Queues `event` of `key` (progress only goes to an attached client), with the change of its
    /// task's row in the same commit, and sends it to the client attached now once committed.
    func deliver(_ event: BackgroundEventRecord, for key: SessionKey, updating update: EventQueue.TaskUpdate? = nil) {
        guard !stopping else { return }
        touch()
        let client = attached[key]
        if event.isQueued || update != nil {
            let body: String?
            do throws(SandboxError) {
                body = event.isQueued ? try EventQueue.json(event, "event") : nil
            } catch {
                logger.error("An event of \(key) could not be queued: \(error)")
                body = nil
            }
            queue.writes.commit(
                "queue an event",
                { db in
                    if let update { try EventQueue.updateTask(db, key, event.taskID, update) }
                    return try body.map { try EventQueue.append(db, event, body: $0, for: key) } ?? event
                },
                then: { [logger] result in
                    switch result {
                    case .success(let queued): client?.sendLive(.event(queued))
                    case .failure(let error):
                        logger.error("An event of \(key) could not be queued: \(error)")
                        client?.sendLive(.event(event))  // not queued: delivered once, as progress is
                    }
                })
        } else if let client {
            queue.writes.after { client.sendLive(.event(event)) }
        }
        if event.kind == .completed { relaunchIfReady(key) }
    }

    /// Programs started by ``relaunchIfReady(_:)``, by session.
    private var relaunched: [SessionKey: AppProcess] = [:]

    /// Runs `key`'s relaunch command when its events are ready: no task unfinished, no process
    /// attached, and the command not running already.
    private func relaunchIfReady(_ key: SessionKey) {
        guard isReadyForRelaunch(key) else { return }
        queue.writes.commit(
            "read a relaunch command", { db in try EventQueue.relaunch(db, for: key) },
            then: { [self, logger] result in
                switch result {
                case .success(let command): if let command { Task { await self.relaunch(key, command) } }
                case .failure(let error): logger.error("The relaunch command of \(key) could not be read: \(error)")
                }
            })
    }

    private func isReadyForRelaunch(_ key: SessionKey) -> Bool {
        attached[key] == nil && (hosts[key]?.activeTaskCount ?? 0) == 0 && (relaunched[key].map(\.hasExited) ?? true)
    }

    /// Runs `command` for `key` if the session is still ready for it: confined exactly as
    /// `sandbox run` confines the app (its bundle verified, its Landlock ruleset and filters, an
    /// environment built from scratch — none of the daemon's), with the network only if the
    /// connection that registered it had it, standard streams on `/dev/null`, and a connection to
    /// this daemon bound to the app (``/Sandbox/DaemonBroker``) as descriptor 3.
    private func relaunch(_ key: SessionKey, _ command: RelaunchCommand) {
        guard isReadyForRelaunch(key) else { return }
        do {
            let process = try RelaunchedApp.start(
                key, command, home: home, location: options.paths.location)
            relaunched[key] = process
            logger.info("relaunched \(key) confined: pid \(process.pid), \(command.arguments)")
            let limit = Duration.milliseconds(Int64(command.timeLimitSeconds * 1000))
            Task {
                try? await Task.sleep(for: limit)  // cancelled: the kill below still runs
                process.signal(SIGKILL)
            }
        } catch {
            logger.error("The relaunch command of \(key) was not run: \(error)")
        }
    }

    // MARK: Lifetime

    /// Drops events older than the retention limit: an app that never comes back does not keep
    /// them forever (its finished files stay in the staging folder, in `Library/Caches`).
    func expireOldEvents() {
        let age = options.eventRetention.secondsAsDouble
        queue.writes.commit(
            "expire old events", { db in try EventQueue.expire(db, olderThan: age) },
            then: { [logger] result in
                if case .failure(let error) = result { logger.error("Expiring old events failed: \(error)") }
            })
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
        for presence in presences.values { presence.close() }
        await queue.writes.flush()
        for client in clients.values { client.close() }
        do {
            try await httpClient.shutdown()
        } catch {
            logger.error("The HTTP client did not shut down: \(error)")
        }
        logger.info("stopped")
    }
}
