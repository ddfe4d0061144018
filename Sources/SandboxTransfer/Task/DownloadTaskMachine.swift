/// The lifecycle of one download task as a pure state machine: no I/O, no clock, no locks.
///
/// The owner (``DownloadTask``) calls one mutating method per event under its lock and performs the
/// returned actions after releasing it. Each transfer run gets a new *generation*; the end of a run
/// is accepted only for the current generation, so a run stopped by `suspend` or `cancel` can never
/// complete a later one. Cancellation wins every race: a run that ends successfully while the task
/// is cancelling is reported as cancelled, and its file is discarded.
struct DownloadTaskMachine: Sendable {
    /// How a run ended.
    enum RunResult: Sendable {
        /// The file is complete (and its digest checked).
        case finished
        /// The run failed; `resumable` when its bytes may be kept for a resume (the session keeps
        /// them only when a validator can guard one).
        case failed(SandboxError, resumable: Bool)
    }

    /// What the owner must do. Equal when the same action with errors of the same code.
    enum Action: Sendable, Equatable {
        /// Put the task in the session's queue.
        case enqueue
        /// Take the task out of the session's queue.
        case dequeue
        /// Start a transfer run with this generation.
        case startRun(generation: Int)
        /// Stop the run with this generation (it ends with `runEnded`).
        case stopRun(generation: Int)
        /// Give the slot back to the session's queue.
        case releaseSlot
        /// Hand the finished file over and report success.
        case deliver
        /// Report failure; keep the partial file for resume data when `keepPartial`, else delete it.
        case reportFailure(SandboxError, keepPartial: Bool)

        static func == (lhs: Action, rhs: Action) -> Bool {
            switch (lhs, rhs) {
            case (.enqueue, .enqueue), (.dequeue, .dequeue), (.releaseSlot, .releaseSlot), (.deliver, .deliver): true
            case (.startRun(let a), .startRun(let b)), (.stopRun(let a), .stopRun(let b)): a == b
            case (.reportFailure(let a, let keepA), .reportFailure(let b, let keepB)):
                a.code == b.code && keepA == keepB
            default: false
            }
        }
    }

    enum State: Sendable, Equatable {
        case suspended
        case waiting
        case running(generation: Int)
        /// Stopping a run for `suspend`; `resumeAfter` when `resume` came meanwhile.
        case suspending(generation: Int, resumeAfter: Bool)
        /// Stopping a run for `cancel`.
        case cancelling(generation: Int, producingResumeData: Bool)
        case completed(Outcome)
    }

    enum Outcome: Sendable, Equatable {
        case succeeded
        case failed
        case cancelled
    }

    private(set) var state: State = .suspended
    private var lastGeneration = 0

    init() {}

    /// A task that is already over (one recovered after the process was killed).
    init(completed outcome: Outcome) {
        state = .completed(outcome)
    }

    /// The public view of the state.
    var publicState: DownloadTaskState {
        switch state {
        case .suspended, .suspending: .suspended
        case .waiting: .waiting
        case .running: .running
        case .cancelling: .cancelling
        case .completed: .completed
        }
    }

    mutating func resume() -> [Action] {
        switch state {
        case .suspended:
            state = .waiting
            return [.enqueue]
        case .suspending(let generation, _):
            state = .suspending(generation: generation, resumeAfter: true)
            return []
        case .waiting, .running, .cancelling, .completed:
            return []
        }
    }

    /// The session's queue gave the task a slot.
    mutating func slotGranted() -> [Action] {
        guard case .waiting = state else { return [.releaseSlot] }
        lastGeneration += 1
        state = .running(generation: lastGeneration)
        return [.startRun(generation: lastGeneration)]
    }

    mutating func suspend() -> [Action] {
        switch state {
        case .waiting:
            state = .suspended
            return [.dequeue]
        case .running(let generation):
            state = .suspending(generation: generation, resumeAfter: false)
            return [.stopRun(generation: generation)]
        case .suspending(let generation, _):
            state = .suspending(generation: generation, resumeAfter: false)
            return []
        case .suspended, .cancelling, .completed:
            return []
        }
    }

    /// `cancel()` (`producingResumeData == false`: the partial file goes) or
    /// `cancel(byProducingResumeData:)`.
    mutating func cancel(producingResumeData: Bool) -> [Action] {
        let error = SandboxError(.cancelled, "The download was cancelled.")
        switch state {
        case .suspended:
            state = .completed(.cancelled)
            return [.reportFailure(error, keepPartial: producingResumeData)]
        case .waiting:
            state = .completed(.cancelled)
            return [.dequeue, .reportFailure(error, keepPartial: producingResumeData)]
        case .running(let generation), .suspending(let generation, _):
            let wasRunning = if case .running = state { true } else { false }
            state = .cancelling(generation: generation, producingResumeData: producingResumeData)
            return wasRunning ? [.stopRun(generation: generation)] : []
        case .cancelling(let generation, let producing):
            state = .cancelling(generation: generation, producingResumeData: producing && producingResumeData)
            return []
        case .completed:
            return []
        }
    }

    /// The run of `generation` ended with `result`.
    mutating func runEnded(generation: Int, result: RunResult) -> [Action] {
        switch state {
        case .running(let current) where current == generation:
            switch result {
            case .finished:
                state = .completed(.succeeded)
                return [.releaseSlot, .deliver]
            case .failed(let error, let resumable):
                state = .completed(.failed)
                return [.releaseSlot, .reportFailure(error, keepPartial: resumable)]
            }
        case .suspending(let current, let resumeAfter) where current == generation:
            state = resumeAfter ? .waiting : .suspended
            return resumeAfter ? [.releaseSlot, .enqueue] : [.releaseSlot]
        case .cancelling(let current, let producing) where current == generation:
            state = .completed(.cancelled)
            let error = SandboxError(.cancelled, "The download was cancelled.")
            return [.releaseSlot, .reportFailure(error, keepPartial: producing)]
        default:
            return []
        }
    }
}
