/// A count of signals that threads of our own wait for (a counting semaphore over
/// ``ConditionLock``): a job handed to another thread signals once when it is done, its owner waits
/// once; a writer thread sleeps until a line is queued. Never wait on it from a thread of Swift's
/// cooperative pool.
package final class Semaphore: @unchecked Sendable {
    private let condition = ConditionLock()
    private var count: Int  // guarded by `condition`

    /// A semaphore holding `count` signals (0: the first ``wait()`` sleeps until a ``signal()``).
    package init(count: Int = 0) {
        self.count = count
    }

    /// Adds a signal, waking one waiter.
    package func signal() {
        condition.withLock {
            count += 1
            condition.signal()
        }
    }

    /// Sleeps until there is a signal, then takes it.
    package func wait() {
        condition.lock()
        while count == 0 { condition.wait() }
        count -= 1
        condition.unlock()
    }
}
