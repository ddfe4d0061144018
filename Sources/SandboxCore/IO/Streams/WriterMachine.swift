/// The queue between tasks appending to a ``FileWriter`` and the one job writing on the engine, as
/// a pure state machine (``FileWriter`` runs it under a lock and performs its actions).
///
/// Appends are queued and return at once while fewer than `highWatermark` bytes are pending; past
/// it, the appending task waits until the job has written the backlog down to `lowWatermark`. The
/// job takes batches of queued data and writes each with one `pwritev`, in order. The first write
/// error fails the writer: pending data is dropped and every later call throws that error.
struct WriterMachine<Waiter> {
    enum Phase {
        case open
        /// ``drain(_:closedError:)`` was called: no more appends; pending data is still written.
        case finishing
        case failed(SandboxError)
        /// Finished or discarded: no more appends.
        case closed
    }

    struct Action {
        /// Resume these waiting tasks with this result.
        var resume: [(Waiter, Result<Void, SandboxError>)] = []
        /// Submit the writing job to the engine.
        var startJob = false
    }

    /// A batch for the job: the bytes and where they go.
    struct Batch {
        var data: DataRegions
        var offset: Int64
    }

    let highWatermark: Int
    let lowWatermark: Int
    /// The most bytes in one batch.
    let batchLimit: Int
    private(set) var phase = Phase.open
    private var pending = FIFO<DataRegions>()
    private(set) var pendingBytes = 0
    /// Bytes handed to the job so far: where the next batch starts.
    private var offset: Int64 = 0
    /// Bytes the job has written.
    private(set) var written: Int64 = 0
    private(set) var jobActive = false
    private var capacityWaiters: [Waiter] = []
    private var drainWaiters: [Waiter] = []

    init(highWatermark: Int, lowWatermark: Int, batchLimit: Int) {
        precondition(highWatermark > 0 && lowWatermark >= 0 && lowWatermark <= highWatermark, "invalid watermarks")
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
        self.batchLimit = batchLimit
    }

    /// A task appends `data`.
    mutating func append(_ data: DataRegions, _ waiter: Waiter, closedError: SandboxError) -> Action {
        var action = Action()
        switch phase {
        case .failed(let error):
            action.resume = [(waiter, .failure(error))]
            return action
        case .closed, .finishing:
            action.resume = [(waiter, .failure(closedError))]
            return action
        case .open:
            break
        }
        if !data.isEmpty {
            pending.append(data)
            pendingBytes += data.count
            if !jobActive {
                jobActive = true
                action.startJob = true
            }
        }
        if pendingBytes > highWatermark {
            capacityWaiters.append(waiter)
        } else {
            action.resume = [(waiter, .success(()))]
        }
        return action
    }

    /// The job asks for its next batch: `nil` when there is nothing to write (the job then ends).
    mutating func takeBatch() -> (Batch?, Action) {
        guard isWriting, !pending.isEmpty else {
            jobActive = false
            var action = Action()
            action.resume = drainWaiters.map { ($0, .success(())) }
            drainWaiters = []
            return (nil, action)
        }
        var data = DataRegions()
        while let next = pending.first,
            data.isEmpty
                || (data.count + next.count <= batchLimit
                    && data.regions.count + next.regions.count <= VectoredIO.maximumVectors)
        {
            data.append(next)
            _ = pending.popFirst()
        }
        let batch = Batch(data: data, offset: offset)
        offset += Int64(data.count)
        return (batch, Action())
    }

    /// The job wrote a batch of `count` bytes, or failed.
    mutating func wrote(_ count: Int, _ result: Result<Void, SandboxError>) -> Action {
        var action = Action()
        pendingBytes -= count
        switch result {
        case .success:
            written += Int64(count)
            if pendingBytes <= lowWatermark {
                action.resume = capacityWaiters.map { ($0, .success(())) }
                capacityWaiters = []
            }
        case .failure(let error):
            if isWriting { phase = .failed(error) }
            _ = pending.removeAll()
            pendingBytes = 0
            jobActive = false
            action.resume = (capacityWaiters + drainWaiters).map { ($0, .failure(error)) }
            capacityWaiters = []
            drainWaiters = []
        }
        return action
    }

    /// A task waits until everything appended has been written (then finishes the file). Appends
    /// fail from now on; a second drain fails with `closedError`.
    mutating func drain(_ waiter: Waiter, closedError: SandboxError) -> Action {
        var action = Action()
        switch phase {
        case .failed(let error):
            action.resume = [(waiter, .failure(error))]
        case .closed, .finishing:
            action.resume = [(waiter, .failure(closedError))]
        case .open:
            phase = .finishing
            if pending.isEmpty && !jobActive {
                action.resume = [(waiter, .success(()))]
            } else {
                drainWaiters.append(waiter)
            }
        }
        return action
    }

    /// No more appends: after a successful drain (finish) or to abandon the file (discard).
    /// Abandoning drops pending data and fails waiting tasks with `error`.
    mutating func close(_ error: SandboxError) -> Action {
        var action = Action()
        if isWriting { phase = .closed }
        _ = pending.removeAll()
        pendingBytes = 0
        action.resume = (capacityWaiters + drainWaiters).map { ($0, .failure(error)) }
        capacityWaiters = []
        drainWaiters = []
        return action
    }

    private var isWriting: Bool {
        switch phase {
        case .open, .finishing: true
        case .failed, .closed: false
        }
    }

    /// The error the writer failed with, if it did.
    var failure: SandboxError? {
        if case .failed(let error) = phase { return error }
        return nil
    }
}
