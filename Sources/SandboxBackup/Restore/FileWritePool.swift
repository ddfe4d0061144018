import Foundation
import SandboxCore

/// Writes a restore's small files on threads of its own while the restore's thread takes their
/// blobs in order and makes directories: a small file costs a create, a write, a `fchmod`, a
/// `futimens` and a close — 10,000 of them were most of a restore's wall time on one thread, and
/// they overlap well (each mostly waits on the file system).
///
/// Bounded: ``submit(_:)`` waits while ``Jobs/maximumPending`` jobs wait. A job's failure is kept
/// and thrown by the next ``submit(_:)`` or by ``drain()``, which the restore calls before hard
/// links (whose first file must exist), before directories get their times, and before the
/// exchange. The threads are a ``WorkerPool``'s.
final class FileWritePool: Sendable {
    typealias Job = Jobs.Job

    private let pool: WorkerPool<Jobs>

    init(threads: Int = 2, maximumPending: Int = 256) {
        pool = WorkerPool(Jobs(maximumPending: maximumPending), threads: threads, name: "restore-files") { job in
            do throws(SandboxError) {
                try job()
                return nil
            } catch {
                return error
            }
        }
    }

    /// Queues `job`, waiting while too many wait.
    ///
    /// - Throws: an earlier job's failure.
    func submit(_ job: @escaping Job) throws(SandboxError) {
        try pool.withState(until: \.acceptsJob) {
            (jobs) throws(SandboxError) in
            if let failure = jobs.failure { throw failure }
            jobs.queue.append(job)
        }
    }

    /// Waits until every queued job has run.
    ///
    /// - Throws: the first job's failure.
    func drain() throws(SandboxError) {
        try pool.withState(until: \.isSettled) {
            (jobs) throws(SandboxError) in
            if let failure = jobs.failure { throw failure }
        }
    }

    /// Stops the threads (jobs not started are dropped) and waits until they have ended.
    func stop() { pool.stop() }
}

/// The jobs waiting, running and failed: the state of a ``FileWritePool``'s threads.
struct Jobs: WorkerPoolState {
    typealias Job = @Sendable () throws(SandboxError) -> Void

    let maximumPending: Int
    var queue: [Job] = []
    private(set) var busy = 0
    private(set) var failure: SandboxError?

    init(maximumPending: Int) {
        self.maximumPending = maximumPending
    }

    /// Whether a job may be queued, or a failure is to be reported.
    var acceptsJob: Bool { failure != nil || queue.count < maximumPending }

    /// Whether every queued job has run, or one failed.
    var isSettled: Bool { failure != nil || (queue.isEmpty && busy == 0) }

    mutating func next() -> WorkerStep<Job> {
        guard !queue.isEmpty else { return .wait }
        busy += 1
        return .perform(queue.removeFirst())
    }

    mutating func record(_ error: SandboxError?) {
        busy -= 1
        if let error, failure == nil { failure = error }
    }
}
