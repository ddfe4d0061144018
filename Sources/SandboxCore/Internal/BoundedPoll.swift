import Glibc

/// Tries a non-blocking step (`flock(LOCK_NB)`, `fcntl(F_OFD_SETLK)`) again and again until it
/// succeeds or a deadline passes: the one way a wait on a lock that another process holds is
/// bounded. Sleeps between tries (1 ms at first, doubling to 25 ms), on the calling thread: call
/// it only from a thread of your own, never from one of the cooperative pool.
package enum BoundedPoll {
    /// Runs `attempt` until it returns `true` or `deadline` passes (it always runs at least once).
    ///
    /// - Returns: whether `attempt` succeeded before the deadline.
    /// - Throws: what `attempt` throws (a real failure, not "busy").
    package static func until<E: Error>(
        _ deadline: ContinuousClock.Instant, _ attempt: () throws(E) -> Bool
    ) throws(E) -> Bool {
        var pause = Duration.milliseconds(1)
        while true {
            if try attempt() { return true }
            let now = ContinuousClock.now
            if now >= deadline { return false }
            let nap = min(pause, deadline - now)
            let (seconds, attoseconds) = nap.components
            var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            _ = nanosleep(&request, nil)  // EINTR: the next try comes a little early, no harm
            pause = min(pause * 2, .milliseconds(25))
        }
    }
}
