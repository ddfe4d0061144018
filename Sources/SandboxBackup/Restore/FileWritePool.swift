import Foundation
import SandboxCore

/// Writes a restore's small files on threads of its own while the restore's thread takes their
/// blobs in order and makes directories: a small file costs a create, a write, a `fchmod`, a
/// `futimens` and a close — 10,000 of them were most of a restore's wall time on one thread, and
/// they overlap well (each mostly waits on the file system).
///
/// Bounded: ``submit(_:)`` waits while ``maximumPending`` jobs wait. A job's failure is kept and
/// thrown by the next ``submit(_:)`` or by ``drain()``, which the restore calls before hard links
/// (whose first file must exist), before directories get their times, and before the exchange.
///
/// The waits are on an `NSCondition`, on the restore's thread (which only waits for these threads,
/// never for Swift's cooperative pool) and on the pool's own threads.
final class FileWritePool: @unchecked Sendable {
    typealias Job = @Sendable () throws(SandboxError) -> Void

    // State guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var busy = 0
    private var failure: SandboxError?
    private var stopping = false
    private var running = 0

    let maximumPending: Int

    init(threads: Int = 2, maximumPending: Int = 256) {
        self.maximumPending = maximumPending
        running = max(1, threads)
        for index in 0..<running {
            let thread = Thread { [self] in work() }
            thread.name = "restore-files-\(index)"
            thread.start()
        }
    }

    /// Queues `job`, waiting while too many wait.
    ///
    /// - Throws: an earlier job's failure.
    func submit(_ job: @escaping Job) throws(SandboxError) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && queue.count >= maximumPending { condition.wait() }
        if let failure { throw failure }
        queue.append(job)
        condition.broadcast()
    }

    /// Waits until every queued job has run.
    ///
    /// - Throws: the first job's failure.
    func drain() throws(SandboxError) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && (!queue.isEmpty || busy > 0) { condition.wait() }
        if let failure { throw failure }
    }

    /// Stops the threads (jobs not started are dropped) and waits until they have ended.
    func stop() {
        condition.lock()
        stopping = true
        queue.removeAll()
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if stopping {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = queue.removeFirst()
            busy += 1
            condition.unlock()
            var error: SandboxError?
            do throws(SandboxError) {
                try job()
            } catch let caught {
                error = caught
            }
            condition.lock()
            busy -= 1
            if let error, failure == nil { failure = error }
            condition.broadcast()
            condition.unlock()
        }
    }
}
