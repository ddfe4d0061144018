import Foundation
import Sandbox
import Synchronization

/// One download: `URLSessionDownloadTask` for this library.
///
/// Made by ``DownloadSession/downloadTask(with:)-(URL)`` or
/// ``DownloadSession/downloadTask(withResumeData:destination:)``, suspended until ``resume()``. Its
/// lifecycle is a state machine (`DownloadTaskMachine`); what it does is reported
/// to the session's delegate and event stream, and ``result()`` waits for the end.
public final class DownloadTask: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Unique within its session, and stable across processes (it is checkpointed).
    public let taskIdentifier: Int
    /// What the task downloads.
    public let request: DownloadRequest
    /// Weak: the session owns its unfinished tasks, and a running transfer keeps the session alive.
    weak let session: DownloadSession?

    struct Live: Sendable {
        var machine: DownloadTaskMachine
        var run: (generation: Int, handle: Task<Void, Never>)?
        var progress = TransferProgress(bytesWritten: 0, totalBytesWritten: 0, totalBytesExpectedToWrite: nil)
        var error: SandboxError?
        var outcome: DownloadOutcome?
        /// Set by the run that completed the file: its size and checked digest.
        var finished: (byteCount: Int64, digest: String?)?
        var waiters: [CheckedContinuation<Result<DownloadOutcome, SandboxError>, Never>] = []
    }

    let live: Mutex<Live>

    init(
        identifier: Int, request: DownloadRequest, session: DownloadSession,
        machine: DownloadTaskMachine = DownloadTaskMachine(), error: SandboxError? = nil
    ) {
        self.taskIdentifier = identifier
        self.request = request
        self.session = session
        self.live = Mutex(Live(machine: machine, error: error))
    }

    /// The ``taskIdentifier``.
    public var id: Int { taskIdentifier }

    /// The task's state.
    public var state: DownloadTaskState { live.withLock { $0.machine.publicState } }
    /// The latest progress.
    public var progress: TransferProgress { live.withLock { $0.progress } }
    /// Why the task failed (with resume data when it can continue), once completed.
    public var error: SandboxError? { live.withLock { $0.error } }

    /// Starts or continues the task. Does nothing once it is running or completed.
    public func resume() { perform { $0.resume() } }

    /// Pauses the task: the transfer stops, the partial file stays, and ``resume()`` continues it
    /// from the bytes on disk (with `Range` and `If-Range`).
    public func suspend() { perform { $0.suspend() } }

    /// Cancels the task: it completes with a `cancelled` error and its partial file is deleted.
    /// Nothing happens once it has completed; a transfer that finishes while being cancelled is
    /// still reported as cancelled.
    public func cancel() { perform { $0.cancel(producingResumeData: false) } }

    /// Cancels the task and keeps its partial file, returning the data to continue it with
    /// ``DownloadSession/downloadTask(withResumeData:destination:)`` — in this process or a later one.
    ///
    /// - Returns: the resume data, or `nil` when the download cannot continue (the server sent no
    ///   strong validator, or the task had already completed).
    public nonisolated(nonsending) func cancelByProducingResumeData() async -> ResumeData? {
        guard startCancellingForResumeData() else { return nil }
        guard case .failure(let error) = await result() else { return nil }
        return error.resumeData
    }

    /// `cancel(byProducingResumeData:)` with a completion handler, called once the partial file is
    /// flushed. The task is cancelling when this returns.
    public func cancel(byProducingResumeData completion: @escaping @Sendable (ResumeData?) -> Void) {
        guard startCancellingForResumeData() else { return completion(nil) }
        Task {
            guard case .failure(let error) = await result() else { return completion(nil) }
            completion(error.resumeData)
        }
    }

    /// Cancels keeping the partial file; `false` when the task had completed already.
    private func startCancellingForResumeData() -> Bool {
        let wasCompleted = live.withLock { $0.machine.publicState == .completed }
        perform { $0.cancel(producingResumeData: true) }
        return !wasCompleted
    }

    /// Waits until the task completes, on the caller's executor (`nonisolated(nonsending)`): from
    /// an actor, a task already completed answers without a hop to the global executor and back,
    /// and a later completion resumes the caller on its actor directly.
    ///
    /// - Returns: where the file went, or the error (``SandboxCore/SandboxError/Code/cancelled`` when cancelled),
    ///   carrying resume data when the download can continue.
    public nonisolated(nonsending) func result() async -> Result<DownloadOutcome, SandboxError> {
        await withCheckedContinuation { continuation in
            let ready: Result<DownloadOutcome, SandboxError>? = live.withLock { live in
                if let outcome = live.outcome { return .success(outcome) }
                if live.machine.publicState == .completed, let error = live.error { return .failure(error) }
                live.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Applies a machine transition under the lock, then performs its actions outside it.
    func perform(_ transition: (inout DownloadTaskMachine) -> [DownloadTaskMachine.Action]) {
        let actions = live.withLock { live in
            var actions = transition(&live.machine)
            // Starting and stopping runs happens under the lock, so a stop can never miss a start.
            actions.removeAll { action in
                switch action {
                case .startRun(let generation):
                    if let session { live.run = (generation, session.startRun(of: self, generation: generation)) }
                    return true
                case .stopRun(let generation):
                    if let run = live.run, run.generation == generation { run.handle.cancel() }
                    return true
                default:
                    return false
                }
            }
            return actions
        }
        session?.perform(actions, for: self)
    }

    /// Records the end of the task and wakes ``result()`` waiters.
    func complete(with result: Result<DownloadOutcome, SandboxError>) {
        let waiters = live.withLock { live in
            switch result {
            case .success(let outcome): live.outcome = outcome
            case .failure(let error): live.error = error
            }
            live.run = nil
            defer { live.waiters = [] }
            return live.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    func update(progress: TransferProgress) {
        live.withLock { $0.progress = progress }
    }

    /// Tasks are equal when they are the same object.
    public static func == (lhs: DownloadTask, rhs: DownloadTask) -> Bool { lhs === rhs }
    /// Hashes the object's identity, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// `download task <id> (<url>, <state>)`, for logs.
    public var description: String { "download task \(taskIdentifier) (\(request.url.absoluteString), \(state))" }
}

/// Where a successful download went.
public struct DownloadOutcome: Sendable, Hashable {
    /// The file's path in the container when the request had a destination; `nil` when the file was
    /// handed over as a temporary file (see ``TransferEvent/didFinishDownloading(_:_:)``).
    public var path: ContainerPath?
    /// The file's size.
    public var byteCount: Int64
    /// The checked digest (lower-case hex), if one was asked for.
    public var digest: String?
}
