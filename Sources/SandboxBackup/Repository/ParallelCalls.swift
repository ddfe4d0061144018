import SandboxCore

/// Storage calls made several at a time — a check's blob reads, a prune's deletions — on the
/// threads of a ``WorkerPool`` (as many as the storage's ``RepositoryStorage/preferredConcurrency``),
/// their outcomes given back in the order of the items, whatever order they finished in.
///
/// Memory: each thread holds what its one call holds (a blob being read and checked) and drops it
/// before it takes the next; only the outcomes are kept. The calling thread waits (it must be one
/// the library owns) and runs `between` each time a call finishes: the lock's refresh, so a long
/// run keeps its lock as the serial loop did.
enum ParallelCalls {
    /// Calls `call` with each index of `0..<count`, `threads` at a time, and returns the outcomes
    /// in index order.
    ///
    /// - Parameters:
    ///   - stoppingAtFailure: take no new index once a call has failed (calls under way finish);
    ///     the indexes not taken have no outcome, and the result ends at the first of them.
    ///   - between: run on the calling thread as calls finish; its error stops the pool (calls
    ///     under way finish) and is thrown.
    /// - Throws: `between`'s error.
    static func map<Value: Sendable>(
        _ count: Int, threads: Int, name: String, stoppingAtFailure: Bool = false,
        between: () throws(SandboxError) -> Void,
        _ call: @escaping @Sendable (Int) -> Result<Value, SandboxError>
    ) throws(SandboxError) -> [Result<Value, SandboxError>] {
        let pool = WorkerPool(
            Calls<Value>(count: count, stoppingAtFailure: stoppingAtFailure),
            threads: count == 0 ? 0 : max(1, min(threads, count)), name: name
        ) { index in (index, call(index)) }
        defer { pool.stop() }
        var seen = 0
        while true {
            let (finished, isSettled) = pool.withState(
                until: { $0.finished > seen || $0.isSettled }, { ($0.finished, $0.isSettled) })
            if isSettled { break }
            seen = finished
            try between()
        }
        return pool.withState { $0.outcomes() }
    }
}

/// Which indexes are taken and what their calls came to: a ``ParallelCalls`` pool's state.
private struct Calls<Value: Sendable>: WorkerPoolState {
    let count: Int
    let stoppingAtFailure: Bool
    private var claimed = 0
    private(set) var finished = 0
    private var failed = false
    private var results: [Result<Value, SandboxError>?]

    init(count: Int, stoppingAtFailure: Bool) {
        self.count = count
        self.stoppingAtFailure = stoppingAtFailure
        results = Array(repeating: nil, count: count)
    }

    /// Whether nothing more will be taken and every call taken has finished.
    var isSettled: Bool { finished == claimed && (claimed == count || failed) }

    mutating func next() -> WorkerStep<Int> {
        guard claimed < count, !failed else { return .finish }
        claimed += 1
        return .perform(claimed - 1)
    }

    mutating func record(_ outcome: (index: Int, result: Result<Value, SandboxError>)) {
        results[outcome.index] = outcome.result
        finished += 1
        if case .failure = outcome.result, stoppingAtFailure { failed = true }
    }

    /// The outcomes in index order, up to the first index without one.
    func outcomes() -> [Result<Value, SandboxError>] {
        Array(results.prefix { $0 != nil }.compactMap { $0 })
    }
}
