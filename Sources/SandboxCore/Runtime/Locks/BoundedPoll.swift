import Glibc

/// Tries a non-blocking step (`flock(LOCK_NB)`, `fcntl(F_OFD_SETLK)`) again and again until it
/// succeeds or a deadline passes: the one way a wait on a lock that another process holds is
/// bounded. Pauses between tries (1 ms at first, doubling to 25 ms): the synchronous form sleeps on
/// the calling thread (call it only from a thread of your own, never from one of the cooperative
/// pool), the `async` form suspends the task.
package enum BoundedPoll {
    /// Runs `attempt` until it returns `true` or `deadline` passes (it always runs at least once).
    ///
    /// - Returns: whether `attempt` succeeded before the deadline.
    /// - Throws: what `attempt` throws (a real failure, not "busy").
    package static func until<E: Error>(
        _ deadline: ContinuousClock.Instant, _ attempt: () throws(E) -> Bool
    ) throws(E) -> Bool {
        var pauses = Pauses()
        while true {
            if try attempt() { return true }
            guard let nap = pauses.next(before: deadline) else { return false }
            OwnedThread.sleep(for: nap)
        }
    }

    /// ``until(_:_:)`` suspending the task between tries.
    ///
    /// - Returns: whether `attempt` succeeded before the deadline (`false` also when the task is
    ///   cancelled).
    /// - Throws: what `attempt` throws (a real failure, not "busy").
    package static func until<E: Error>(
        _ deadline: ContinuousClock.Instant, _ attempt: () throws(E) -> Bool
    ) async throws(E) -> Bool {
        var pauses = Pauses()
        while true {
            if try attempt() { return true }
            guard let nap = pauses.next(before: deadline) else { return false }
            do {
                try await Task.sleep(for: nap)
            } catch {
                return false  // cancelled: as if the deadline had passed
            }
        }
    }

    /// The pause before each next try: doubling from 1 ms to 25 ms, never past the deadline.
    private struct Pauses {
        private var pause = Duration.milliseconds(1)

        mutating func next(before deadline: ContinuousClock.Instant) -> Duration? {
            let now = ContinuousClock.now
            guard now < deadline else { return nil }
            defer { pause = min(pause * 2, .milliseconds(25)) }
            return min(pause, deadline - now)
        }
    }
}
