import Synchronization

/// Produces parts on an ``IOEngine`` for one consuming task, with a bounded buffer between them
/// (the rules are in ``ProducerMachine``).
///
/// `step` is called on the engine's threads, one call at a time, with the number of parts there is
/// room for (at least 1); it returns one or more parts, and none at the end. Producing several parts
/// in one step (one `preadv` into several pooled buffers) saves system calls and hand-offs to the
/// consumer. `onTerminated` is called exactly once, when the producer will never call `step` again.
final class PooledProducer<Element: Sendable>: Sendable {
    typealias Waiter = UnsafeContinuation<Result<Element?, SandboxError>, Never>

    private let engine: IOEngine
    private let step: @Sendable (_ room: Int) throws(SandboxError) -> [Element]
    private let onTerminated: (@Sendable () -> Void)?
    private let machine: Mutex<ProducerMachine<Element, Waiter>>

    init(
        engine: IOEngine,
        highWatermark: Int,
        lowWatermark: Int,
        onTerminated: (@Sendable () -> Void)? = nil,
        step: @escaping @Sendable (_ room: Int) throws(SandboxError) -> [Element]
    ) {
        self.engine = engine
        self.step = step
        self.onTerminated = onTerminated
        machine = Mutex(ProducerMachine(highWatermark: highWatermark, lowWatermark: lowWatermark))
    }

    /// Starts producing now rather than at the first ``next()``.
    func start() {
        perform(machine.withLock { $0.start() })
    }

    /// The next part, `nil` after the last.
    ///
    /// - Throws: the error `step` threw (once; `nil` after it), or the cancellation error.
    func next() async throws(SandboxError) -> Element? {
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { (consumer: Waiter) in
                perform(machine.withLock { $0.next(consumer) })
            }
        } onCancel: {
            cancel(.rule(.interrupted, "The task reading the parts was cancelled."))
        }
        return try result.get()
    }

    /// Stops producing; a waiting consumer gets `error`.
    func cancel(_ error: SandboxError) {
        perform(machine.withLock { $0.cancel(error) })
    }

    /// Whether the producer has finished, failed or been cancelled.
    var hasEnded: Bool { machine.withLock { $0.hasEnded } }

    private func perform(_ action: ProducerMachine<Element, Waiter>.Action) {
        if let (consumer, result) = action.resume { consumer.resume(returning: result) }
        if action.terminated { onTerminated?() }
        if action.startJob {
            engine.schedule(
                { self.runJob() },
                reject: { error in
                    self.perform(
                        self.machine.withLock { machine in
                            // The job never ran: end as if it had failed.
                            machine.produced(.failure(error))
                        })
                })
        }
    }

    /// Produces parts until the buffer is full, the end is reached, or the producer is cancelled.
    private func runJob() {
        while true {
            let (proceed, room, stop) = machine.withLock { $0.willProduce() }
            guard proceed else {
                perform(stop)
                return
            }
            let result = Result { () throws(SandboxError) in try step(room) }
            let action = machine.withLock { $0.produced(result) }
            perform(action)
            guard action.produceAgain else { return }
        }
    }
}
