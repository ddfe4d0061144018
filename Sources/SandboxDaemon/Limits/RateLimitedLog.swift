/// Decides which of a stream of similar log messages are written: at most ``burst`` in each
/// ``period``, then one that says how many were left out. A hostile client that reconnects in a
/// loop cannot fill the disk with the daemon's log. A pure value; the caller passes the time.
struct RateLimitedLog: Sendable {
    let burst: Int
    let period: Duration
    private var periodStart: ContinuousClock.Instant?
    private var written = 0
    private var skipped = 0

    /// At most `burst` messages every `period`: ten every ten seconds by default.
    init(burst: Int = 10, period: Duration = .seconds(10)) {
        self.burst = burst
        self.period = period
    }

    /// The text to log for `message` at `now`, or `nil` to leave it out.
    mutating func admit(_ message: String, at now: ContinuousClock.Instant) -> String? {
        if let start = periodStart, now - start < period {
            guard written < burst else {
                skipped += 1
                return nil
            }
        } else {
            periodStart = now
            written = 0
        }
        written += 1
        defer { skipped = 0 }
        return skipped == 0 ? message : "\(message) (\(skipped) similar messages left out)"
    }
}
