/// The operations of an ``IOChannel`` and its closing, as a pure state machine: the channel runs it
/// under a lock and performs the actions outside it.
///
/// Random-access operations start as soon as they are issued and run side by side. Stream operations
/// run one at a time in the order they were issued, because each continues at the position the one
/// before left. Closing refuses new operations; the descriptor is released once every operation has
/// ended, at once if none is running. Closing immediately also cancels the operations.
struct ChannelMachine<Operation> {
    struct Action {
        var start: [Operation] = []
        var cancel: [Operation] = []
        /// The operation was refused: the channel is closed.
        var refuse: Operation?
        /// Release the descriptor now (exactly once).
        var releaseDescriptor = false
    }

    let isStream: Bool
    private var active: [UInt64: Operation] = [:]
    private var streamQueue = FIFO<UInt64>()
    private var runningStream: UInt64?
    private(set) var isClosing = false
    private var released = false

    init(isStream: Bool) {
        self.isStream = isStream
    }

    var activeCount: Int { active.count }

    /// An operation was issued.
    mutating func add(_ id: UInt64, _ operation: Operation) -> Action {
        var action = Action()
        guard !isClosing else {
            action.refuse = operation
            return action
        }
        active[id] = operation
        if !isStream {
            action.start = [operation]
        } else if runningStream == nil {
            runningStream = id
            action.start = [operation]
        } else {
            streamQueue.append(id)
        }
        return action
    }

    /// An operation ended (finished, failed or cancelled).
    mutating func ended(_ id: UInt64) -> Action {
        var action = Action()
        guard active.removeValue(forKey: id) != nil else { return action }
        if runningStream == id {
            runningStream = nil
            while let next = streamQueue.popFirst() {
                guard let operation = active[next] else { continue }  // ended while queued
                runningStream = next
                action.start = [operation]
                break
            }
        }
        action.releaseDescriptor = releaseIfIdle()
        return action
    }

    /// Closes the channel; with `immediately`, running and queued operations are cancelled.
    mutating func close(immediately: Bool) -> Action {
        var action = Action()
        isClosing = true
        if immediately {
            action.cancel = Array(active.values)
        }
        action.releaseDescriptor = releaseIfIdle()
        return action
    }

    private mutating func releaseIfIdle() -> Bool {
        guard isClosing, active.isEmpty, !released else { return false }
        released = true
        return true
    }
}
