/// Runs a task's jobs on the I/O engine's threads: for asynchronous code that makes blocking
/// system calls as it goes (a WebDAV listing, a copy, an upload's publication), which may then
/// block — on threads the library owns, never on Swift's cooperative pool or an event loop.
///
/// A task that prefers this executor (`withTaskExecutorPreference`) runs each stretch between two
/// suspensions as one engine job; while it is suspended it holds no thread. Jobs share the engine's
/// bounded queue with every other I/O: a job that finds it full waits for a slot. A job the engine
/// refuses (it has shut down) runs on the global executor instead, as a task must always run.
final class EngineTaskExecutor: TaskExecutor {
    private let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        core.submit(
            IOJob(
                id: core.makeJobID(),
                work: { job.runSynchronously(on: self.asUnownedTaskExecutor()) },
                reject: { _ in globalConcurrentExecutor.enqueue(ExecutorJob(job)) }))
    }
}

extension IOEngine {
    /// Runs `body` with this engine's threads as its task executor: its blocking calls, and those
    /// of the child tasks it starts, run on the engine (``EngineTaskExecutor``).
    package func withTaskExecutor<T: Sendable, Failure: Error>(
        _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await withTaskExecutorPreference(taskExecutor, operation: body)
    }
}
