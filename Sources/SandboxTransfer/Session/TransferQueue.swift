/// The session's concurrency limits as a pure queue: at most `maximumActive` tasks run at once, and
/// at most `maximumPerHost` against one host; the others wait in order of arrival.
struct TransferQueue: Sendable {
    let maximumActive: Int
    let maximumPerHost: Int
    private var waiting: [(task: Int, host: String)] = []
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
        guard active[task] == nil, !waiting.contains(where: { $0.task == task }) else { return [] }
        waiting.append((task, host))
        return admit()
    }

    /// Takes a waiting task out of the queue.
    mutating func remove(_ task: Int) {
        waiting.removeAll { $0.task == task }
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
        var index = 0
        while index < waiting.count && active.count < maximumActive {
            let candidate = waiting[index]
            if perHost[candidate.host, default: 0] < maximumPerHost {
                waiting.remove(at: index)
                active[candidate.task] = candidate.host
                perHost[candidate.host, default: 0] += 1
                started.append(candidate.task)
            } else {
                index += 1
            }
        }
        return started
    }
}
