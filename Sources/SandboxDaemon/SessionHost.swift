import Foundation
import Logging
import Sandbox
import SandboxTransfer
import Synchronization

/// One background session the daemon runs: the existing ``DownloadSession`` (its checkpoints,
/// resume rules and retries) in the app's container, its tasks numbered by the daemon so that they
/// keep their identifiers across the daemon's restarts, its finished files moved into the
/// session's staging folder in `Library/Caches`, and its events handed to the ``Daemon``.
final class SessionHost: Sendable {
    /// The staging folders' parent, relative to the container's home.
    static let stagingFolder = ContainerPath(constant: "Library/Caches/com.sandbox.background")
    /// The download session's identifier is the background session's with this prefix, so that it
    /// never clashes with a foreground session of the app.
    static let sessionPrefix = BackgroundQueueSchema.downloadSessionPrefix
    /// How the daemon transfers: eight tasks at once, from one host too (aria2c's `-j 8`; the
    /// foreground default is six, four per host); otherwise the foreground's defaults.
    static let configuration = DownloadSession.Configuration(
        maximumConcurrentTasks: 8, maximumConcurrentTasksPerHost: 8)
    /// The most tasks a session keeps in memory (issue 31): the running ones and the next ones to
    /// start. The others wait in the queue's rows only (`waiting`, no download task) and are taken
    /// in, in identifier order, as the ones in memory complete: 100,000 queued tasks cost rows on
    /// disk, not task objects, checkpoint records and scheduler entries in the daemon.
    static let window = 64

    let key: SessionKey
    private let container: Container
    private let session: DownloadSession
    private let daemon: Daemon
    private let logger: Logger

    private struct Live {
        /// The largest background task identifier used: the next task gets the one after it.
        var largestID: Int
        /// Background task identifier by download task identifier, for the tasks running now.
        var byUnderlying: [Int: Int] = [:]
        var tasks: [Int: DownloadTask] = [:]
        /// Set while the daemon stops: the cancellations that pause the tasks are not reported.
        var pausing = false
        /// The tasks that wait in the queue's rows only, not yet in ``tasks``.
        var queued = 0
        /// The largest identifier taken in from the rows: they are taken in order.
        var admittedUpTo = 0
        /// Whether a read of waiting rows is under way.
        var admitting = false
    }

    private let live: Mutex<Live>
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    /// What the host handles, in one ordered stream: the download session's events and the
    /// scheduler's reports.
    private enum Input: Sendable {
        case download(DownloadEvent)
        case waitingForConnectivity(taskID: Int)
        /// Handled after every input before it: ``suspend()`` waits for it.
        case barrier(CheckedContinuation<Void, Never>)
    }

    private let inputs: AsyncStream<Input>.Continuation

    /// Checks that `session` can name a background session.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when it is not one plain name.
    static func validate(session: String) throws(SandboxError) {
        do throws(SandboxError) {
            _ = try ContainerPath.validateName(sessionPrefix + session)
        } catch {
            throw SandboxError(
                .invalidArgument, "'\(session)' cannot name a background session: \(error.message)",
                underlying: .wrapping(error))
        }
    }

    /// Opens the download session of `key` in `container` and starts reading its events.
    ///
    /// - Throws: as ``DownloadSession/init(identifier:container:configuration:delegate:httpClient:logger:)``.
    init(key: SessionKey, container: Container, daemon: Daemon) throws(SandboxError) {
        try Self.validate(session: key.session)
        self.key = key
        self.container = container
        self.daemon = daemon
        self.logger = daemon.logger
        live = Mutex(Live(largestID: try daemon.queue.largestTaskID(of: key)))
        session = try DownloadSession(
            identifier: Self.sessionPrefix + key.session, container: container, configuration: Self.configuration,
            sharing: daemon.httpClient, logger: daemon.logger)
        let events = session.events
        let (stream, inputs) = AsyncStream.makeStream(of: Input.self)
        self.inputs = inputs
        consumer.withLock { consumer in
            // On the I/O engine, not the cooperative pool: ``suspend()`` waits for this loop, and
            // a lifecycle operation waits for that within its timeout, however busy the pool.
            consumer = Task(executorPreference: IOEngine.shared.taskExecutor) { [self] in
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        for await event in events { inputs.yield(.download(event)) }
                    }
                    for await input in stream {
                        switch input {
                        case .download(let event): await handle(event)
                        case .waitingForConnectivity(let id):
                            await daemon.deliver(
                                BackgroundEventRecord(taskID: id, kind: .waitingForConnectivity), for: key)
                        case .barrier(let continuation): continuation.resume()
                        }
                    }
                }
            }
        }
    }

    deinit {
        consumer.withLock { $0?.cancel() }
        inputs.finish()
    }

    /// Tasks running or waiting, in memory or in the queue's rows.
    var activeTaskCount: Int { live.withLock { $0.tasks.count + $0.queued } }

    /// The tasks in memory: at most ``window`` (and those a restart found started).
    package var residentTaskCount: Int { live.withLock { $0.tasks.count } }

    /// The live progress and state of background task `id`, if it is running in this process. A
    /// download that has completed is still `running` until the host has queued its completion:
    /// a listing never says `completed` before the completion event is on its way to the app
    /// (`sandbox downloads --wait` relies on it).
    func liveState(of id: Int) -> (DownloadTaskState, TransferProgress)? {
        guard let task = live.withLock({ $0.tasks[id] }) else { return nil }
        return (task.state == .completed ? .running : task.state, task.progress)
    }

    // MARK: Tasks

    /// Starts a task for `request` and records it in the queue's next commit; `recorded` runs
    /// with the task's identifier once that commit is done (the answer to the app goes then: a
    /// task the app was told of survives a kill). Call it on the daemon actor, which orders the
    /// queue's steps: the task's events are recorded after its row.
    ///
    /// - Throws: `invalid-url` for a URL a download cannot use.
    func submit(
        _ request: BackgroundRequest, recorded: @escaping @Sendable (Result<Int, SandboxError>) -> Void
    ) throws(SandboxError) {
        let downloadRequest = try Self.downloadRequest(request)
        let body = try EventQueue.json(request, "task")
        let key = key
        let queued = live.withLock { live in
            guard live.queued > 0 || live.tasks.count >= Self.window else { return nil as Int? }
            live.largestID += 1
            live.queued += 1
            return live.largestID
        }
        if let id = queued {
            // Behind others, or no place in memory: recorded `waiting`, taken in when its turn comes.
            daemon.queue.writes.commit(
                "record a task",
                { db in try EventQueue.insertTask(db, key, id, url: request.url, body: body, underlying: nil) },
                then: { [self] result in
                    if case .failure = result { live.withLock { $0.queued -= 1 } }
                    recorded(result.map { id })
                    admitWaiting()
                })
            return
        }
        let task = try session.downloadTask(with: downloadRequest)
        let id = live.withLock { live in
            live.largestID += 1
            return live.largestID
        }
        let underlying = task.taskIdentifier
        daemon.queue.writes.commit(
            "record a task",
            { db in try EventQueue.insertTask(db, key, id, url: request.url, body: body, underlying: underlying) },
            then: { [logger] result in
                if case .failure(let error) = result {
                    logger.error("Task \(id) of \(key) could not be recorded; it is cancelled: \(error)")
                    task.cancel()
                }
                recorded(result.map { id })
            })
        start(id, task: task, request: request)
    }

    /// Continues this session's unfinished stored tasks: the started ones from their resume data
    /// (the partial file and the checkpoint the stopped or killed daemon left), else from zero; the
    /// ones waiting in the queue's rows are taken in as places free up.
    func resumeStoredTasks() throws(SandboxError) {
        let paused = session.pendingResumeData()
        let (started, waiting) = try daemon.queue.unfinishedTasks(of: key)
        live.withLock { live in
            live.queued = waiting
            live.admittedUpTo = 0
        }
        defer { admitWaiting() }
        for stored in started {
            let request = try Self.downloadRequest(stored.request)
            let task: DownloadTask
            if let data = paused.first(where: { $0.taskIdentifier == stored.underlying }) {
                task = try session.downloadTask(withResumeData: data, destination: request.destination)
            } else {
                task = try session.downloadTask(with: request)
            }
            let (key, id, underlying) = (key, stored.info.taskID, task.taskIdentifier)
            daemon.queue.writes.commit("update task \(id)") { db in
                try EventQueue.updateTask(db, key, id, .running(underlying: underlying))
            }
            start(id, task: task, request: stored.request)
        }
    }

    /// Takes the next waiting tasks from the queue's rows into memory, in order, once the tasks in
    /// memory are down to half the window: one read at a time, none while the session pauses.
    private func admitWaiting() {
        let ask = live.withLock { live -> (limit: Int, after: Int)? in
            guard !live.admitting, !live.pausing, live.queued > 0, live.tasks.count <= Self.window / 2 else {
                return nil
            }
            live.admitting = true
            return (Self.window - live.tasks.count, live.admittedUpTo)
        }
        guard let ask else { return }
        let (key, logger) = (key, logger)
        daemon.queue.writes.commit(
            "read waiting tasks",
            { db in try EventQueue.waitingTasks(db, key, after: ask.after, limit: ask.limit, logger: logger) },
            then: { [self] result in
                switch result {
                case .success(let page):
                    let paused = live.withLock { live in
                        live.admitting = false
                        guard !live.pausing else { return true }  // the rows stay: counted again on resuming
                        live.admittedUpTo = page.last
                        live.queued = max(0, live.queued - page.rows)
                        return false
                    }
                    guard !paused else { return }
                    for stored in page.tasks { admit(stored) }
                    // None read: what is counted is still being recorded, and its commit calls this again.
                    if page.rows > 0 { admitWaiting() }
                case .failure(let error):
                    live.withLock { $0.admitting = false }
                    logger.error("The waiting tasks of \(key) could not be read: \(error)")
                }
            })
    }

    /// Starts stored task `stored`, taken in from the queue's rows; one that cannot start
    /// completes with its error.
    private func admit(_ stored: EventQueue.StoredTask) {
        let (key, id) = (key, stored.info.taskID)
        do throws(SandboxError) {
            let task = try session.downloadTask(with: try Self.downloadRequest(stored.request))
            let underlying = task.taskIdentifier
            daemon.queue.writes.commit("update task \(id)") { db in
                try EventQueue.updateTask(db, key, id, .running(underlying: underlying))
            }
            start(id, task: task, request: stored.request)
        } catch {
            logger.error("Task \(id) of \(key) could not start: \(error)")
            var record = BackgroundEventRecord(taskID: id, kind: .completed)
            record.errorCode = error.code.description
            record.errorMessage = error.message
            let daemon = daemon
            Task {
                await daemon.deliver(
                    record, for: key,
                    updating: .completed(errorCode: error.code.description, bytesWritten: 0, expectedLength: nil))
            }
        }
    }

    /// Makes `task` background task `id` and hands it to the daemon's scheduler, which resumes it
    /// now or when it may run (connectivity, discretionary).
    private func start(_ id: Int, task: DownloadTask, request: BackgroundRequest) {
        live.withLock { live in
            live.byUnderlying[task.taskIdentifier] = id
            live.tasks[id] = task
            live.largestID = max(live.largestID, id)
        }
        let policy = SchedulerMachine.Policy(
            waitsForConnectivity: request.waitsForConnectivity ?? true,
            isDiscretionary: request.isDiscretionary ?? false)
        let inputs = inputs
        daemon.scheduler.add(
            TaskReference(key: key, id: id), url: task.request.url, policy: policy,
            TransferScheduler.Scheduled(task: task) { inputs.yield(.waitingForConnectivity(taskID: id)) })
    }

    /// Cancels background task `id` (it completes with `cancelled`); `done` runs once that is
    /// decided: at once for a task in memory, after the queue's step for one waiting in its rows.
    /// `done` gets ``/SandboxCore/SandboxError/Code/notFound`` when the session has no such
    /// unfinished task.
    func cancel(_ id: Int, done: @escaping @Sendable (Result<Void, SandboxError>) -> Void) {
        let notFound = SandboxError(.notFound, "The background session '\(key)' has no unfinished task \(id).")
        if let task = live.withLock({ $0.tasks[id] }) {
            task.cancel()
            return daemon.queue.writes.after { done(.success(())) }
        }
        let key = key
        daemon.queue.writes.commit(
            "cancel a waiting task", { db in try EventQueue.cancelWaiting(db, key, id) },
            then: { [self] result in
                switch result {
                case .success(let changed):
                    if let task = live.withLock({ $0.tasks[id] }) {
                        task.cancel()  // taken in meanwhile: its own completion reports it
                        return done(.success(()))
                    }
                    guard changed else { return done(.failure(notFound)) }
                    live.withLock { $0.queued = max(0, $0.queued - 1) }
                    var record = BackgroundEventRecord(taskID: id, kind: .completed)
                    record.errorCode = SandboxError.Code.cancelled.description
                    record.errorMessage = "The task was cancelled before it started."
                    let daemon = daemon
                    Task { await daemon.deliver(record, for: key) }
                    done(.success(()))
                case .failure(let error): done(.failure(error))
                }
            })
    }

    /// Pauses every task, keeping partial files and checkpoints, and waits until they have stopped.
    func pause() async {
        let tasks = live.withLock { live in
            live.pausing = true
            return Array(live.tasks.values)
        }
        for task in tasks { _ = await task.cancelByProducingResumeData() }
    }

    /// Lets go of the container for a lifecycle operation: the tasks leave the scheduler and pause
    /// (partial files and checkpoints kept), and the event being handled — a finished file being
    /// moved into the container — is handled to its end; the events after it are not (a file that
    /// finished meanwhile is downloaded again by ``resumeInPlace()``, or in the new container).
    /// Returns when nothing of the session writes into the container any more.
    func suspend() async {
        let references = live.withLock { live in
            live.pausing = true
            return live.tasks.keys.map { TaskReference(key: key, id: $0) }
        }
        for reference in references { daemon.scheduler.remove(reference) }
        await pause()
        await withCheckedContinuation { continuation in
            if case .terminated = inputs.yield(.barrier(continuation)) { continuation.resume() }
        }
    }

    /// Continues the tasks ``suspend()`` paused, in the same container, from their partial files.
    ///
    /// - Throws: as ``resumeStoredTasks()``.
    func resumeInPlace() throws(SandboxError) {
        live.withLock { live in
            live.pausing = false
            live.tasks = [:]
            live.byUnderlying = [:]
        }
        try resumeStoredTasks()
    }

    /// Ends the session after ``suspend()``: its checkpoint lock is released and its events end.
    func close() async {
        await session.invalidateAndCancel()
        inputs.finish()
    }

    private static func downloadRequest(_ request: BackgroundRequest) throws(SandboxError) -> DownloadRequest {
        guard let url = URL(string: request.url), DownloadRequest.isSupported(url) else {
            throw SandboxError(
                .invalidURL, "'\(request.url)' is not an absolute http or https URL.", url: request.url)
        }
        return DownloadRequest(
            url: url, headers: request.headers, expectedDigest: request.expectedDigest,
            destination: request.destination)
    }

    // MARK: Events

    private func handle(_ event: DownloadEvent) async {
        guard let task = event.task else { return }  // about the session: nothing to queue
        let underlying = task.taskIdentifier
        guard let id = live.withLock({ $0.pausing ? nil : $0.byUnderlying[underlying] }) else {
            return  // a task of an earlier process, reported by recovery; or the daemon is stopping
        }
        var finishedPath: String?
        var update: EventQueue.TaskUpdate?
        if case .didFinishDownloading(_, let file) = event {
            finishedPath = stage(file, id: id)
        }
        guard let record = BackgroundEventRecord(event, taskID: id, finishedPath: finishedPath) else { return }
        if case .willRetry = event {
            daemon.scheduler.requestProbe()  // the network may be gone with no change reported
        }
        if case .didComplete(_, let error) = event {
            live.withLock { live in
                live.byUnderlying[underlying] = nil
                live.tasks[id] = nil
            }
            daemon.scheduler.remove(TaskReference(key: key, id: id))
            admitWaiting()
            let progress = task.progress
            update = .completed(
                errorCode: error?.code.description, bytesWritten: error == nil ? progress.totalBytesWritten : 0,
                expectedLength: progress.totalBytesExpectedToWrite)
        } else if let finishedPath {
            update = .finished(path: finishedPath)
        }
        await daemon.deliver(record, for: key, updating: update)
    }

    /// Moves a finished file that went to no destination into the staging folder
    /// (`Library/Caches/com.sandbox.background/<session>/<task>-<name>`), through the container's
    /// confined root. Returns its path, or `nil` (logged) when it could not be moved.
    /// The folder and the move ask the container's policy (a link the app planted in
    /// `Library/Caches` must not route the file into `Library/Preferences`, say).
    private func stage(_ file: DownloadedFile, id: Int) -> String? {
        if let moved = file.movedPath { return moved.description }
        do throws(SandboxError) {
            let folder = try Self.stagingFolder.appending(key.session)
            try container.checkPolicy(allowing: .create, at: folder)
            try container.root.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = try folder.appending("\(id)-\(file.suggestedFilename)")
            do throws(SandboxError) {
                try file.move(toPath: path, replacingExisting: true)
            } catch {
                logger.error("The finished file of task \(id) of \(key) could not be staged: \(error)")
                return nil
            }
            return path.description
        } catch {
            logger.error("The staging folder of \(key) could not be made: \(error)")
            return nil
        }
    }
}
