import AsyncHTTPClient
import Foundation
import Glibc
import Logging
import Sandbox
import SandboxStore
import Synchronization
import SystemPackage

/// A download session: `URLSession` with download tasks, for one app container.
///
/// Identified by a string, like a background `URLSessionConfiguration`: its partial files and its
/// checkpoint live in `Library/Caches/com.sandbox.downloads/<identifier>/` inside the container.
/// A session re-created with the same identifier after the process was killed reports each task
/// that was unfinished as completed with a ``/SandboxCore/SandboxError/Code/interrupted`` error carrying resume
/// data (the seed's `didCompleteWithError` case); ``downloadTask(withResumeData:destination:)`` continues it
/// from the bytes on disk. One process at a time may open a session identifier.
///
/// Events arrive on ``events`` (one consumer) and on the delegate.
public final class DownloadSession: Sendable {
    /// Where sessions keep their files, relative to the container's home.
    public static let folder = ContainerPath(constant: "Library/Caches/com.sandbox.downloads")
    static let checkpointFolder = "tasks"
    static let lockName = ".lock"

    /// The session's identifier.
    public let identifier: String
    /// Its limits, retries and timeouts.
    public let configuration: Configuration
    /// Everything the session reports, in order per task. Iterate it once. Until it is read, the
    /// newest ``eventBufferSize`` events are kept (so a session used only through its delegate does
    /// not grow without bound).
    public let events: AsyncStream<DownloadEvent>
    /// How many unread events ``events`` keeps.
    public static let eventBufferSize = 10_000
    /// Where the session reports what it handles on its own without failing a task: files it could
    /// not examine, delete or record in passing (warnings) and the best-effort steps it skipped (debug).
    public let logger: Logger

    let delegate: (any DownloadSessionDelegate)?
    let root: ConfinedRoot
    /// The app's container: finished files are moved where its policy allows.
    let container: Container
    /// The container's device's Data Protection: a finished file handed to a folder with a
    /// protection class is sealed with it.
    let dataProtection: DataProtection
    let directory: ContainerPath
    let store: SessionStore
    /// The HTTP client every request goes through.
    let client: HTTPClient
    /// Whether ``client`` is the session's own, shut down when the session is invalidated or released.
    private let ownsClient: Bool
    /// Set by ``invalidateAndCancel()``: no new tasks.
    private let invalidated = Mutex(false)
    private let eventSink: AsyncStream<DownloadEvent>.Continuation
    private let queue: Mutex<TransferQueue>
    private let liveTasks = Mutex<[Int: DownloadTask]>([:])
    private let lock: FileLock
    /// The random part of this session object's partial file names (see ``partialName(for:)``).
    private let partialNameNonce = Hex.string(of: UInt64.random(in: 0...UInt64.max))

    /// Opens the session `identifier` of `container`.
    ///
    /// - Parameters:
    ///   - identifier: the session's name, one plain file name (its folder is
    ///     `Library/Caches/com.sandbox.downloads/<identifier>/`); re-create a session with the same
    ///     identifier to find its tasks again after a restart.
    ///   - container: the app's container, where the session's folder, checkpoint and finished
    ///     files live.
    ///   - configuration: timeouts, retries, redirects and how many downloads run at once;
    ///     ``Configuration/standard`` by default.
    ///   - delegate: told of progress, finished files and completions, as
    ///     `URLSessionDownloadDelegate` is; `nil` to follow ``events`` only.
    ///   - httpClient: the client to send requests with, owned by the caller: the session never
    ///     shuts it down, so shut it down after the session is done. Its own timeouts and redirect
    ///     policy apply (the configuration's do not), and it must not decompress bodies (its
    ///     default). `nil` (the default): the session makes a client from `configuration` and shuts
    ///     it down when invalidated (``invalidateAndCancel()``) or released.
    ///   - logger: where the session reports what it handles on its own (see ``logger``). The
    ///     default discards everything, as a library must not write to the process's output
    ///     unasked.
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for an identifier that is not one plain
    ///   name, ``SandboxCore/SandboxError/Code/sessionInUse`` when another process has it open,
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged checkpoint, the core's code of a file failure
    ///   (its ``/SandboxCore/SandboxError`` is the cause) when its folder or checkpoint cannot be read or written.
    public init(
        identifier: String, container: Container, configuration: Configuration = .standard,
        delegate: (any DownloadSessionDelegate)? = nil,
        httpClient: HTTPClient? = nil, logger: Logger = DownloadSession.disabledLogger
    ) throws(SandboxError) {
        let root = container.root
        self.identifier = identifier
        self.logger = logger
        self.configuration = configuration
        self.delegate = delegate
        self.root = root
        self.container = container
        dataProtection = DataProtection(home: container.home)
        self.directory = try Self.directory(for: identifier)
        do throws(SandboxError) {
            try root.createDirectory(at: directory, withIntermediateDirectories: true)
            lock = try FileLock(root: root, path: directory.appending(Self.lockName))
        } catch {
            throw .fileSystem(error, doing: "open the download session's folder '\(directory)'")
        }
        let locked: Bool
        do throws(SandboxError) {
            locked = try lock.tryLock(.exclusive)
        } catch {
            throw .fileSystem(error, doing: "lock the download session's folder '\(directory)'")
        }
        guard locked else {
            throw SandboxError(
                .sessionInUse,
                "The download session '\(identifier)' is open in another process; wait for it to end or use another identifier.",
                path: directory.description)
        }
        store = try SessionStore(root: root, folder: try Self.checkpointPath(in: directory))
        (client, ownsClient) = httpClient.map { ($0, false) } ?? (HTTPClient.forDownloads(configuration), true)
        queue = Mutex(
            TransferQueue(
                maximumActive: configuration.maximumConcurrentTasks,
                maximumPerHost: configuration.maximumConcurrentTasksPerHost))
        (events, eventSink) = AsyncStream.makeStream(
            of: DownloadEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferSize))
        try recover()
    }

    deinit {
        let orphans = liveTasks.withLock { $0.values }
        for task in orphans {
            task.complete(
                with: .failure(
                    SandboxError(
                        .cancelled, "The download session '\(identifier)' was released before the task ended.")))
        }
        eventSink.finish()
        lock.unlock()  // the file closes with the lock
        if ownsClient && !invalidated.withLock({ $0 }) {
            // no run is left (runs keep the session alive); nothing to report from a deinit
            client.shutdown(queue: .global()) { _ in }
        }
    }

    /// The checkpoint folder of the session folder `directory`.
    static func checkpointPath(in directory: ContainerPath) throws(SandboxError) -> ContainerPath {
        try SessionStore.path(checkpointFolder, in: directory)
    }

    /// The folder of session `identifier`.
    static func directory(for identifier: String) throws(SandboxError) -> ContainerPath {
        do throws(SandboxError) {
            return try folder.appending(ContainerPath.validateName(identifier))
        } catch {
            throw SandboxError(
                .invalidArgument, "'\(identifier)' cannot name a download session: \(error.message)",
                underlying: .wrapping(error))
        }
    }

    // MARK: Tasks

    /// A suspended task that downloads `url`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidURL`` unless `url` is absolute http(s),
    ///   ``SandboxCore/SandboxError/Code/sessionInvalidated`` after ``invalidateAndCancel()``, the core's code
    ///   of a file failure (its ``/SandboxCore/SandboxError`` is the cause) when the checkpoint cannot be written.
    public func downloadTask(with url: URL) throws(SandboxError) -> DownloadTask {
        try downloadTask(with: DownloadRequest(url: url))
    }

    /// A suspended task for `request`.
    ///
    /// - Throws: as ``downloadTask(with:)-(URL)``.
    public func downloadTask(with request: DownloadRequest) throws(SandboxError) -> DownloadTask {
        try checkValid()
        guard DownloadRequest.isSupported(request.url) else {
            throw SandboxError(
                .invalidURL, "'\(request.url.absoluteString)' is not an absolute http or https URL.",
                url: request.url.absoluteString)
        }
        let record = try store.add { id in
            TaskRecord(
                id: id, originalURL: request.url.absoluteString, headers: request.headers,
                expectedDigest: request.expectedDigest,
                destination: request.destination, phase: .active, partialName: partialName(for: id),
                bytesOnDisk: 0, createdAt: Date(),
                updatedAt: Date())
        }
        return register(DownloadTask(identifier: record.id, request: request, session: self))
    }

    /// A suspended task that continues the download `resumeData` describes, from the bytes on disk.
    ///
    /// When the partial file is gone or was replaced, the task starts from zero and reports
    /// ``RestartReason/partialFileUnusable``. `destination` says where the finished file goes (see
    /// ``DownloadRequest/destination``).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidResumeData`` when it fails ``ResumeData/validate()`` or
    ///   belongs to another session, ``SandboxCore/SandboxError/Code/sessionInvalidated`` after
    ///   ``invalidateAndCancel()``, the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the
    ///   cause) when the checkpoint cannot be written.
    public func downloadTask(
        withResumeData resumeData: ResumeData, destination: DownloadDestination? = nil
    ) throws(SandboxError) -> DownloadTask {
        try checkValid()
        try resumeData.validate()
        guard resumeData.sessionIdentifier == identifier else {
            throw SandboxError(
                .invalidResumeData,
                "The resume data belongs to session '\(resumeData.sessionIdentifier)', not '\(identifier)'; resume it there.",
                url: resumeData.originalURL)
        }
        guard let url = URL(string: resumeData.originalURL) else {
            throw SandboxError(
                .invalidResumeData, "'\(resumeData.originalURL)' is not a URL.", url: resumeData.originalURL)
        }
        let previous = store.record(resumeData.taskIdentifier)
        let partialUsable = isPartialUsable(resumeData.partialFile)
        // Other paused records of the same partial file are superseded by this task.
        let superseded = Set(store.records.filter { $0.partialName == resumeData.partialFile.name }.map(\.id))
        let request = DownloadRequest(
            url: url, headers: resumeData.headers, expectedDigest: resumeData.expectedDigest,
            destination: destination ?? previous?.destination)
        let record = try store.add(replacing: superseded) { id in
            TaskRecord(
                id: id, originalURL: resumeData.originalURL, finalURL: resumeData.finalURL, headers: resumeData.headers,
                expectedDigest: resumeData.expectedDigest, destination: request.destination, phase: .active,
                validator: partialUsable ? resumeData.validator : nil,
                expectedLength: partialUsable ? resumeData.expectedLength : nil,
                partialName: partialUsable ? resumeData.partialFile.name : partialName(for: id), bytesOnDisk: 0,
                lastRestartReason: partialUsable ? nil : .partialFileUnusable, createdAt: Date(), updatedAt: Date())
        }
        let task = register(DownloadTask(identifier: record.id, request: request, session: self))
        if !partialUsable {
            removePartial(named: resumeData.partialFile.name)  // replaced or damaged: no task owns it now
            emit(.didRestart(task, reason: .partialFileUnusable))
        }
        return task
    }

    /// The tasks that have not completed.
    public func allTasks() -> [DownloadTask] {
        liveTasks.withLock { Array($0.values) }.sorted { $0.taskIdentifier < $1.taskIdentifier }
    }

    /// How many task records the session holds in memory: those of tasks not completed (a completed
    /// task's is read from the checkpoint's log when listed).
    package var residentRecordCount: Int { store.residentCount }

    /// The resume data of every task of this session that stopped with a partial file kept
    /// (interrupted by the end of a process, failed, or cancelled producing resume data), oldest first.
    public func pendingResumeData() -> [ResumeData] {
        store.records.compactMap { record in
            guard case .failed(_, _, true) = record.phase else { return nil }
            return resumeData(for: record)
        }
    }

    /// Forgets a paused task and deletes its partial file.
    ///
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause)
    ///   when the checkpoint cannot be written.
    public func discard(_ resumeData: ResumeData) throws(SandboxError) {
        guard let record = store.record(resumeData.taskIdentifier), !record.isUnfinished else { return }
        removePartial(named: record.partialName)
        try store.remove(record.id)
    }

    /// Cancels every task (without resume data), waits until they have completed, ends
    /// ``events``, and shuts the session's own HTTP client down. The session makes no new tasks
    /// afterwards (``SandboxCore/SandboxError/Code/sessionInvalidated``); its folder stays, for the next
    /// session with its identifier.
    public func invalidateAndCancel() async {
        let first = invalidated.withLock { invalidated in
            defer { invalidated = true }
            return !invalidated
        }
        let tasks = allTasks()
        for task in tasks { task.cancel() }
        for task in tasks { _ = await task.result() }
        eventSink.finish()
        guard first, ownsClient else { return }
        do {
            try await client.shutdown()
        } catch {
            // Only when already shut down, or closing idle connections failed: nothing is left to release.
            logger.debug("Shutting the session's HTTP client down failed: \(error)")
        }
    }

    /// Throws when the session was invalidated.
    private func checkValid() throws(SandboxError) {
        guard invalidated.withLock({ $0 }) else { return }
        throw SandboxError(
            .sessionInvalidated,
            "The download session '\(identifier)' was invalidated; open it again to start downloads.",
            path: directory.description)
    }

    // MARK: Internals

    private func register(_ task: DownloadTask) -> DownloadTask {
        liveTasks.withLock { $0[task.taskIdentifier] = task }
        return task
    }

    /// A partial file's name: the task's identifier and a random part drawn once per session
    /// object, so no name is ever reused — identifiers are unique within a session object, and a
    /// later one (after a kill forgot unrecorded tasks, whose identifiers may come again) draws
    /// another part. One draw per session rather than per task saves a `getrandom` per download.
    func partialName(for id: Int) -> String {
        "\(id)-\(partialNameNonce).partial"
    }

    /// The file `name` in the session's folder.
    ///
    /// - Throws: the core's code when `name` is not one plain name (checkpoints and resume data
    ///   are checked when read, so only a programming error could).
    func partialPath(_ name: String) throws(SandboxError) -> ContainerPath {
        try SessionStore.path(name, in: directory)
    }

    /// The partial file `name`'s attributes (a symlink as itself), `nil` when nothing is there.
    ///
    /// - Throws: the core's code when the file cannot be examined.
    func partialAttributes(_ name: String) throws(SandboxError) -> FileAttributes? {
        let path = try partialPath(name)
        do throws(SandboxError) {
            return try root.attributes(at: path, followingSymlink: false)
        } catch {
            throw .fileSystem(error, doing: "examine the partial file '\(path)'")
        }
    }

    /// The partial file `name`'s attributes, `nil` when nothing is there or when it cannot be
    /// examined (which goes to ``logger`` with `consequence`).
    private func examinedPartial(_ name: String, unreadable consequence: @autoclosure () -> String) -> FileAttributes? {
        do throws(SandboxError) {
            return try partialAttributes(name)
        } catch {
            logger.handled(error, consequence())
            return nil
        }
    }

    /// Whether the file `identity` names is still the partial file it was: a regular file with the
    /// same inode and birth time. One that cannot be examined is not used (the download restarts,
    /// and ``logger`` says why).
    func isPartialUsable(_ identity: PartialFileIdentity) -> Bool {
        guard let attributes = examinedPartial(identity.name, unreadable: "The download starts from zero."),
            attributes.type == .regular
        else { return false }
        let birth = attributes.creationDate?.timeIntervalSince1970
        return (identity.inode == nil || identity.inode == attributes.inode)
            && (identity.birthTime == nil || identity.birthTime == birth)
    }

    /// Deletes the file `name` of the session's folder, if it is there (best effort: the next
    /// session's start sweeps what is left; a failure goes to ``logger``).
    func removePartial(named name: String) {
        do throws(SandboxError) {
            let path = try partialPath(name)
            do throws(SandboxError) {
                try root.removeItem(at: path)  // 0 when already gone: fine
            } catch {
                throw .fileSystem(error, doing: "delete '\(path)'")
            }
        } catch {
            logger.handled(error, "The session's next start deletes it.")
        }
    }

    /// The data to resume `record` with: `nil` without a validator or without its partial file (or
    /// when the file cannot be examined, which goes to ``logger``).
    func resumeData(for record: TaskRecord) -> ResumeData? {
        guard record.validator != nil,
            let attributes = examinedPartial(
                record.partialName, unreadable: "The download of \(record.originalURL) cannot be resumed.")
        else { return nil }
        return ResumeData(
            sessionIdentifier: identifier, taskIdentifier: record.id, originalURL: record.originalURL,
            finalURL: record.finalURL,
            validator: record.validator, expectedLength: record.expectedLength,
            partialFile: PartialFileIdentity(
                name: record.partialName, inode: attributes.inode,
                birthTime: attributes.creationDate?.timeIntervalSince1970),
            expectedDigest: record.expectedDigest,
            headers: record.headers.filter { !HeaderSyntax.isCredentials($0.key) },
            createdAt: record.createdAt)
    }

    /// Reports an event on the stream and to the delegate.
    func emit(_ event: DownloadEvent) {
        eventSink.yield(event)
        guard let delegate else { return }
        switch event {
        case .didResume(let task, let offset, let total):
            delegate.downloadSession(self, downloadTask: task, didResumeAtOffset: offset, expectedTotalBytes: total)
        case .didWriteData(let task, let progress):
            delegate.downloadSession(
                self, downloadTask: task, didWriteData: progress.bytesWritten,
                totalBytesWritten: progress.totalBytesWritten,
                totalBytesExpectedToWrite: progress.totalBytesExpectedToWrite)
        case .didFinishDownloading(let task, let file):
            delegate.downloadSession(self, downloadTask: task, didFinishDownloadingTo: file)
            file.discardIfNotMoved()
        case .didComplete(let task, let error):
            delegate.downloadSession(self, task: task, didCompleteWithError: error)
        case .didRestart, .willRetry, .taskIsWaitingForConnectivity, .didFinishEvents:
            break  // no delegate method (a foreground session sends neither of the last two)
        }
    }

    /// Performs a task's machine actions (other than starting and stopping runs).
    func perform(_ actions: [DownloadTaskMachine.Action], for task: DownloadTask) {
        for action in actions {
            switch action {
            case .enqueue:
                let host = task.request.url.host ?? ""
                grant(queue.withLock { $0.enqueue(task.taskIdentifier, host: host) })
            case .dequeue:
                queue.withLock { $0.remove(task.taskIdentifier) }
            case .releaseSlot:
                grant(queue.withLock { $0.release(task.taskIdentifier) })
            case .deliver:
                deliver(task)
            case .reportFailure(let error, let keepPartial):
                fail(task, with: error, keepingPartial: keepPartial)
            case .startRun, .stopRun:
                break
            }
        }
    }

    private func grant(_ identifiers: [Int]) {
        for id in identifiers {
            guard let task = liveTasks.withLock({ $0[id] }) else {
                grant(queue.withLock { $0.release(id) })
                continue
            }
            task.perform { $0.slotGranted() }
        }
    }

    /// Starts a transfer run of `task` (called under the task's lock: must not take it).
    /// On the I/O engine, not the cooperative pool: a pause (``DownloadTask/cancelByProducingResumeData()``)
    /// waits for the run to end, and a daemon letting go for a lifecycle operation waits for that.
    func startRun(of task: DownloadTask, generation: Int) -> Task<Void, Never> {
        Task(executorPreference: IOEngine.shared.taskExecutor) {
            let result = await TransferRun(session: self, task: task).execute()
            task.perform { $0.runEnded(generation: generation, result: result) }
        }
    }

    /// Forgets a completed task and wakes its ``DownloadTask/result()`` waiters.
    func finishTask(_ task: DownloadTask, _ result: Result<DownloadOutcome, SandboxError>) {
        liveTasks.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
        task.complete(with: result)
    }
}
