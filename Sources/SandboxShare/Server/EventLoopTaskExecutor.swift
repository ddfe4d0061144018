import NIOCore

/// Runs a task's jobs on one SwiftNIO event loop: the connection's own, so that a request read
/// from its socket is answered, and the answer written, without a hop to Swift's global pool and
/// back.
///
/// A small GET spends most of its time on those two hand-offs between threads when each request
/// runs on the global pool (the event loop wakes a pool thread, which wakes the event loop again to
/// write); on the event loop it costs neither. What runs here must not block: work that may wait
/// for a disk goes to the I/O engine, and the methods that do heavy synchronous work run on the
/// engine's threads (``ShareResponder``).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
