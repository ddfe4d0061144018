import Glibc
import Synchronization

/// The engine's threads and their shared queue. Threads hold the core, not the engine, so that an
/// engine that goes away can stop them.
final class EngineCore: @unchecked Sendable {
    private let lock = ConditionLock()
    // Guarded by `lock`:
    private var queue: WorkQueue
    private var liveThreads = 0
    private var running = 0
    private var completed = 0

    private let jobIDs = Atomic<UInt64>(0)

    init(capacity: Int) {
        queue = WorkQueue(capacity: capacity)
    }

    func makeJobID() -> UInt64 {
        jobIDs.add(1, ordering: .relaxed).newValue
    }

    func submit(_ job: IOJob) {
        lock.lock()
        let admission = queue.submit(job)
        if admission == .queued { lock.signal() }
        lock.unlock()
        if admission == .rejected {
            job.reject(.rule(.interrupted, "The I/O engine has shut down; no more work can be submitted to it."))
        }
    }

    func withdraw(_ id: UInt64) {
        let job = lock.withLock { queue.withdraw(id) }
        job?.reject(
            .rule(.interrupted, "The task was cancelled while its I/O waited for a free slot in the engine's queue."))
    }

    func shutdown() {
        lock.lock()
        let rejected = queue.stop()
        lock.broadcast()
        lock.unlock()
        for job in rejected {
            job.reject(.rule(.interrupted, "The I/O engine shut down before this work could start."))
        }
    }

    func statistics(threadCount: Int) -> IOEngine.Statistics {
        lock.withLock {
            IOEngine.Statistics(
                threadCount: threadCount, liveThreads: liveThreads, queueCapacity: queue.capacity,
                queued: queue.queued.count, peakQueued: queue.peakQueued, waiting: queue.waiting.count,
                running: running, completed: completed)
        }
    }

    func startThread() {
        lock.withLock { liveThreads += 1 }
        do {
            try OwnedThread.detached(name: "sandbox-io") { [self] in workerLoop() }
        } catch {
            // Out of threads: the engine runs with fewer; it needs only one to make progress.
            lock.withLock { liveThreads -= 1 }
        }
    }

    private func workerLoop() {
        // A write to a pipe whose reader has gone must fail with EPIPE, not kill the process:
        // SIGPIPE is sent to the writing thread, and blocked here it stays pending, harmlessly.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        lock.lock()
        while true {
            guard let job = queue.take() else {
                if queue.isStopping {
                    liveThreads -= 1
                    lock.unlock()
                    return
                }
                lock.wait()
                continue
            }
            // A waiting job may just have been admitted: let an idle thread have it.
            if !queue.queued.isEmpty { lock.signal() }
            running += 1
            lock.unlock()
            job.work()
            lock.lock()
            running -= 1
            completed += 1
        }
    }
}
