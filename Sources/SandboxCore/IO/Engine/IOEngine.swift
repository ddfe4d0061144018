import Glibc
import Synchronization

/// The one place where the library's asynchronous I/O runs blocking system calls: a fixed set of
/// threads taking jobs from a bounded queue, and a pool of reusable buffers.
///
/// File I/O on Linux blocks (there is no non-blocking `read` for regular files), so async APIs hand
/// each system call to one of these threads and suspend the calling task until it is done. Streams,
/// writers, channels and one-shot reads all use the same engine: there is no second executor per
/// feature. Unlike a queue that accepts work without limit, at most ``queueCapacity`` jobs are
/// queued; a task whose job finds the queue full stays suspended, unadmitted, until a thread frees a
/// slot, and if that task is cancelled meanwhile its job is withdrawn (it throws
/// ``SandboxError/Code/interrupted``).
///
/// ``shared`` serves the whole process; make an engine of your own to isolate a workload, and call
/// ``shutdown()`` when done with it.
public final class IOEngine: Sendable {
    /// The process-wide engine: ``defaultThreadCount`` threads, queue of 256.
    public static let shared = IOEngine(threadCount: defaultThreadCount, queueCapacity: 256)

    /// Twice the number of online processors, at least 4 and at most 64, unless the environment
    /// variable `SANDBOX_IO_THREADS` gives a number.
    public static var defaultThreadCount: Int {
        if let value = getenv("SANDBOX_IO_THREADS"), let count = Int(String(cString: value)), count > 0 {
            return count
        }
        return min(64, max(4, 2 * sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// The default size of a chunk read or written in one system call: 1 MiB.
    public static let defaultChunkSize = 1 << 20

    /// The number of threads.
    public let threadCount: Int
    /// The most jobs queued at once.
    public let queueCapacity: Int
    let buffers: BufferPool
    let core: EngineCore
    /// The executor that runs a task's jobs on these threads (``withTaskExecutor(_:)``).
    package let taskExecutor: any TaskExecutor

    /// Starts an engine.
    ///
    /// - Parameters:
    ///   - threadCount: how many threads run system calls (at least 1).
    ///   - queueCapacity: how many jobs may wait for a thread before submitters are held back.
    ///   - bufferCacheLimit: how many bytes of spare buffers to keep for reuse.
    public init(threadCount: Int, queueCapacity: Int = 256, bufferCacheLimit: Int = 32 << 20) {
        precondition(threadCount > 0 && queueCapacity > 0, "an engine needs at least one thread and one queue slot")
        self.threadCount = threadCount
        self.queueCapacity = queueCapacity
        buffers = BufferPool(maximumPooledSize: Self.defaultChunkSize, cacheLimit: bufferCacheLimit)
        core = EngineCore(capacity: queueCapacity)
        taskExecutor = EngineTaskExecutor(core: core)
        for _ in 0..<threadCount { core.startThread() }
    }

    deinit {
        core.shutdown()
    }

    /// Runs `body` on one of the engine's threads and returns its result.
    ///
    /// - Throws: what `body` throws; ``SandboxError/Code/interrupted`` when the engine has shut down,
    ///   or when the task is cancelled while its job still waits for a queue slot (a job that has
    ///   started always finishes).
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let outcome = try await perform { () -> Result<T, any Error> in Result(catching: body) }
        return try outcome.get()
    }

    /// ``run(_:)`` for bodies that throw only ``SandboxError``, keeping the error type.
    func perform<T: Sendable>(_ body: @escaping @Sendable () throws(SandboxError) -> T) async throws(SandboxError) -> T
    {
        let id = core.makeJobID()
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<T, SandboxError>, Never>) in
                core.submit(
                    IOJob(
                        id: id,
                        work: { continuation.resume(returning: Result(catching: body)) },
                        reject: { continuation.resume(returning: .failure($0)) }
                    ))
            }
        } onCancel: {
            core.withdraw(id)
        }
        return try result.get()
    }

    /// Submits work without waiting for it; `reject` is called instead of `work` if it cannot run
    /// (the engine has shut down). The work may block: it runs on one of the engine's threads.
    package func schedule(_ work: @escaping @Sendable () -> Void, reject: @escaping @Sendable (SandboxError) -> Void) {
        core.submit(IOJob(id: core.makeJobID(), work: work, reject: reject))
    }

    /// Stops the engine: jobs already queued still run, jobs still waiting for a slot and jobs
    /// submitted later are rejected with ``SandboxError/Code/interrupted``, and the threads exit when
    /// the queue is empty. Returns at once.
    public func shutdown() {
        core.shutdown()
    }

    /// A snapshot of the engine's counters.
    public var statistics: Statistics { core.statistics(threadCount: threadCount) }

    /// The engine's counters, for tests, benchmarks and diagnostics.
    public struct Statistics: Sendable, Hashable {
        /// The configured number of threads.
        public var threadCount: Int
        /// Threads alive now (0 after shutdown has completed).
        public var liveThreads: Int
        /// The queue's capacity.
        public var queueCapacity: Int
        /// Jobs queued now.
        public var queued: Int
        /// The most jobs ever queued at once; never more than ``queueCapacity``.
        public var peakQueued: Int
        /// Jobs waiting for a queue slot now.
        public var waiting: Int
        /// Jobs running now.
        public var running: Int
        /// Jobs finished since the engine started.
        public var completed: Int
    }
}
