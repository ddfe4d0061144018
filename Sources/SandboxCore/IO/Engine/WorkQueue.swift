/// A unit of work for the engine's threads: `work` runs a blocking system call; `reject` reports
/// that it will never run (the engine shut down, or the task that waited for it was cancelled).
struct IOJob: Sendable {
    let id: UInt64
    let work: @Sendable () -> Void
    let reject: @Sendable (SandboxError) -> Void
}

/// The engine's queue as a pure state machine: a bounded queue the threads take from, and behind it
/// the jobs not yet admitted.
///
/// At most `capacity` jobs are queued. A job that finds the queue full waits, unadmitted, until a
/// thread takes a job; the task that submitted it is suspended meanwhile (``IOEngine/run(_:)``
/// awaits its result), which is the back-pressure: nothing can pile work up without being slowed
/// down, unlike a queue that accepts work and returns at once. A waiting job can be withdrawn
/// (its task was cancelled); an admitted one always runs.
struct WorkQueue {
    enum Admission: Equatable {
        /// Queued: wake a thread.
        case queued
        /// The queue is full: the job waits for a slot.
        case waiting
        /// The engine is shutting down: reject the job.
        case rejected
    }

    let capacity: Int
    private(set) var queued = FIFO<IOJob>()
    private(set) var waiting = FIFO<IOJob>()
    private(set) var isStopping = false
    private(set) var peakQueued = 0

    init(capacity: Int) {
        precondition(capacity > 0, "an engine queue needs room for at least one job")
        self.capacity = capacity
    }

    mutating func submit(_ job: IOJob) -> Admission {
        if isStopping { return .rejected }
        if queued.count < capacity && waiting.isEmpty {
            queued.append(job)
            peakQueued = max(peakQueued, queued.count)
            return .queued
        }
        waiting.append(job)
        return .waiting
    }

    /// The next job for a thread, admitting the oldest waiting job into the freed slot. `nil`
    /// when there is nothing to do.
    mutating func take() -> IOJob? {
        guard let job = queued.popFirst() else { return nil }
        if let admitted = waiting.popFirst() {
            queued.append(admitted)
            peakQueued = max(peakQueued, queued.count)
        }
        return job
    }

    /// Withdraws a job that has not been admitted yet; `nil` if it was admitted (or never submitted).
    mutating func withdraw(_ id: UInt64) -> IOJob? {
        waiting.removeFirst { $0.id == id }
    }

    /// Stops admitting work; returns the jobs that will never run. Queued jobs still run.
    mutating func stop() -> [IOJob] {
        isStopping = true
        return waiting.removeAll()
    }
}
