/// The hand-off between a producer job on the engine and the task consuming its parts, as a pure
/// state machine: no locks, no effects. ``PooledProducer`` runs it under a lock and performs the
/// actions it returns outside the lock.
///
/// The producer runs one job at a time on the engine, producing parts (one or a few per step) into a
/// buffer that holds about `highWatermark` parts. When the buffer is full the job ends ("parks"), freeing its thread; the
/// consumer restarts it once it has taken the buffer down to `lowWatermark`. A consumer that finds
/// the buffer empty waits for the next part. Cancelling drops buffered parts at once.
struct ProducerMachine<Element, Waiter> {
    enum End {
        case finished
        case failed(SandboxError)
        case cancelled(SandboxError)
    }

    /// What the owner must do after an event.
    struct Action {
        /// Resume this waiting consumer with this result.
        var resume: (Waiter, Result<Element?, SandboxError>)?
        /// Submit a job to the engine.
        var startJob = false
        /// The running job should produce another part.
        var produceAgain = false
        /// The producer will never run again: report it (exactly once).
        var terminated = false
    }

    let highWatermark: Int
    let lowWatermark: Int
    private var buffer = FIFO<Element>()
    private var waiter: Waiter?
    private(set) var jobActive = false
    private(set) var end: End?
    private var terminationReported = false
    /// Whether a failure has been delivered; later `next` calls return `nil`.
    private var failureDelivered = false

    init(highWatermark: Int, lowWatermark: Int) {
        precondition(highWatermark >= 1 && lowWatermark >= 0 && lowWatermark < highWatermark, "invalid watermarks")
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
    }

    var bufferedCount: Int { buffer.count }

    /// Starts producing before anyone asks (channel operations start when they are issued).
    mutating func start() -> Action {
        guard end == nil, !jobActive else { return Action() }
        jobActive = true
        return Action(startJob: true)
    }

    /// The consumer asks for the next part.
    mutating func next(_ consumer: Waiter) -> Action {
        precondition(waiter == nil, "two tasks iterate the same producer at once")
        var action = Action()
        if let element = buffer.popFirst() {
            action.resume = (consumer, .success(element))
            if end == nil && !jobActive && buffer.count <= lowWatermark {
                jobActive = true
                action.startJob = true
            }
            return action
        }
        switch end {
        case .finished?:
            action.resume = (consumer, .success(nil))
        case .failed(let error)?, .cancelled(let error)?:
            action.resume = (consumer, failureDelivered ? .success(nil) : .failure(error))
            failureDelivered = true
        case nil:
            waiter = consumer
            if !jobActive {
                jobActive = true
                action.startJob = true
            }
        }
        return action
    }

    /// The job is about to produce parts: `false` if it should stop (cancelled); otherwise `room`,
    /// how many parts it may produce in one step (at least 1) without passing the high watermark
    /// by more than one step's worth.
    mutating func willProduce() -> (proceed: Bool, room: Int, action: Action) {
        if end == nil { return (true, Swift.max(1, highWatermark - buffer.count), Action()) }
        jobActive = false
        return (false, 0, reportTermination())
    }

    /// The job produced parts (none at the end), or failed.
    mutating func produced(_ result: Result<[Element], SandboxError>) -> Action {
        var action = Action()
        if case .cancelled? = end {
            jobActive = false
            return reportTermination()  // the parts are dropped
        }
        switch result {
        case .success(let elements) where !elements.isEmpty:
            var rest = elements[...]
            if let consumer = waiter, let first = rest.popFirst() {
                waiter = nil
                action.resume = (consumer, .success(first))
            }
            for element in rest { buffer.append(element) }
            if buffer.count < highWatermark {
                action.produceAgain = true
            } else {
                jobActive = false  // park until the consumer drains the buffer
            }
        case .success:
            end = .finished
            jobActive = false
            if let consumer = waiter {
                waiter = nil
                action.resume = (consumer, .success(nil))
            }
            action.terminated = takeTermination()
        case .failure(let error):
            end = .failed(error)
            jobActive = false
            if let consumer = waiter {
                waiter = nil
                action.resume = (consumer, .failure(error))
                failureDelivered = true
            }
            action.terminated = takeTermination()
        }
        return action
    }

    /// Stops the producer: buffered parts are dropped, a waiting consumer gets `error`, and the
    /// running job (if any) stops after its current part.
    mutating func cancel(_ error: SandboxError) -> Action {
        var action = Action()
        switch end {
        case .cancelled?, .failed?:
            return action
        case .finished?:
            // Everything was produced; only undelivered parts are dropped.
            _ = buffer.removeAll()
            end = .cancelled(error)
            return action
        case nil:
            break
        }
        end = .cancelled(error)
        _ = buffer.removeAll()
        if let consumer = waiter {
            waiter = nil
            action.resume = (consumer, .failure(error))
            failureDelivered = true
        }
        if !jobActive { action.terminated = takeTermination() }
        return action
    }

    private mutating func reportTermination() -> Action {
        Action(terminated: takeTermination())
    }

    private mutating func takeTermination() -> Bool {
        guard !terminationReported else { return false }
        terminationReported = true
        return true
    }

    /// Whether the producer has ended (finished, failed or cancelled).
    var hasEnded: Bool { end != nil }
}
