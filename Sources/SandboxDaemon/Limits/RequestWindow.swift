import Synchronization

/// How many requests, from all connections together, the daemon takes before what they asked
/// for has been done: a connection waits for a place before it hands a request on.
///
/// A request's work is done in the queue's next group commit, which keeps each step's result
/// until the whole batch has committed; without a window, a client that pipelines thousands of
/// `list` requests makes one batch hold thousands of listings at once, whatever its outbox holds.
/// Past ``size`` requests, the next ones wait for `barrier` (the queue's flush: every step asked
/// for before it finished, its answer queued), then take the places it freed. A burst of 1,000
/// submits still commits in batches of ``size``.
final class RequestWindow: Sendable {
    let size: Int
    private let barrier: @Sendable () async -> Void
    private let state = Mutex(State())

    private struct State: Sendable {
        /// Requests handed on since the last barrier started.
        var taken = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
        var flushing = false
    }

    init(size: Int, barrier: @escaping @Sendable () async -> Void) {
        self.size = size
        self.barrier = barrier
    }

    /// Returns when the caller may hand a request on: at once while the window has room, else
    /// after the next barrier.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (admitted, startBarrier) = state.withLock { state -> (Bool, Bool) in
                if state.taken < size {
                    state.taken += 1
                    return (true, false)
                }
                state.waiting.append(continuation)
                defer { state.flushing = true }
                return (false, !state.flushing)
            }
            if admitted { continuation.resume() }
            if startBarrier { Task { await self.drain() } }
        }
    }

    /// Runs barriers while requests wait, admitting up to ``size`` of them after each.
    private func drain() async {
        while true {
            await barrier()
            let admitted = state.withLock { state in
                state.taken = min(size, state.waiting.count)
                let admitted = Array(state.waiting.prefix(size))
                state.waiting.removeFirst(admitted.count)
                state.flushing = !state.waiting.isEmpty
                return admitted
            }
            for continuation in admitted { continuation.resume() }
            guard !admitted.isEmpty, state.withLock({ $0.flushing }) else { return }
        }
    }
}
