import NIOCore

/// The session's concurrency limits as a pure queue: at most `maximumActive` tasks run at once, and
/// at most `maximumPerHost` against one host; the others wait in order of arrival.
///
/// The waiting line is a ring buffer with the waiting identifiers in a set, so enqueueing and
/// starting the oldest task cost the same with 10,000 waiting as with 10 (an array scanned on
/// every enqueue and shifted on every start cost O(waiting) per task).
struct TransferQueue: Sendable {
    let maximumActive: Int
    let maximumPerHost: Int
    private var waiting = CircularBuffer<(task: Int, host: String)>()
    private var waitingSet: Set<Int> = []
    private var active: [Int: String] = [:]
    private var perHost: [String: Int] = [:]

    init(maximumActive: Int, maximumPerHost: Int) {
        self.maximumActive = max(1, maximumActive)
        self.maximumPerHost = max(1, maximumPerHost)
    }

    /// Tasks running now.
    var activeCount: Int { active.count }
    /// Tasks waiting for a slot.
    var waitingTasks: [Int] { waiting.map(\.task) }

    /// Adds `task`; returns the tasks that may start now (in order).
    mutating func enqueue(_ task: Int, host: String) -> [Int] {
        guard active[task] == nil, waitingSet.insert(task).inserted else { return [] }
        waiting.append((task, host))
        return admit()
    }

    /// Takes a waiting task out of the queue.
    mutating func remove(_ task: Int) {
        guard waitingSet.remove(task) != nil, let index = waiting.firstIndex(where: { $0.task == task }) else {
            return
        }
        waiting.remove(at: index)
    }

    /// `task` stopped running; returns the tasks that may start now.
    mutating func release(_ task: Int) -> [Int] {
        guard let host = active.removeValue(forKey: task) else { return [] }
        perHost[host, default: 1] -= 1
        if perHost[host] == 0 { perHost[host] = nil }
        return admit()
    }

    private mutating func admit() -> [Int] {
        var started: [Int] = []
        var offset = 0  // from the oldest waiting task: indices do not survive a removal
        while offset < waiting.count && active.count < maximumActive {
            let index = waiting.index(waiting.startIndex, offsetBy: offset)
            let candidate = waiting[index]
            if perHost[candidate.host, default: 0] < maximumPerHost {
                if offset == 0 {
                    waiting.removeFirst()  // O(1): the usual case
                } else {
                    waiting.remove(at: index)
                }
                waitingSet.remove(candidate.task)
                active[candidate.task] = candidate.host
                perHost[candidate.host, default: 0] += 1
                started.append(candidate.task)
            } else {
                offset += 1
            }
        }
        return started
    }
}
