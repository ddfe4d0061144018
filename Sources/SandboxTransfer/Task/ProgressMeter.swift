import SandboxCore

/// Turns a stream of writes into throttled progress reports with a smoothed speed (pure: the caller
/// passes the time).
///
/// Reports at most once per ``interval`` (and always the last one, through ``flush(now:)``); the
/// speed is an exponentially weighted moving average of the rate between reports.
struct ProgressMeter: Sendable {
    /// The shortest time between reports: 100 ms, about ten per second.
    static let defaultInterval: Duration = .milliseconds(100)

    let interval: Duration
    private(set) var totalWritten: Int64
    var expectedTotal: Int64?
    private var unreported: Int64 = 0
    private var lastReport: ContinuousClock.Instant?
    private var rate: Double?

    init(startingAt offset: Int64, expectedTotal: Int64?, interval: Duration = defaultInterval) {
        self.interval = interval
        self.totalWritten = offset
        self.expectedTotal = expectedTotal
    }

    /// Records `count` bytes written at `now`; returns a report when one is due.
    mutating func record(_ count: Int64, now: ContinuousClock.Instant) -> TransferProgress? {
        totalWritten += count
        unreported += count
        guard let last = lastReport else {
            lastReport = now
            return nil
        }
        guard now - last >= interval else { return nil }
        return report(now: now, since: last)
    }

    /// A report of what is not reported yet, if anything.
    mutating func flush(now: ContinuousClock.Instant) -> TransferProgress? {
        guard unreported > 0 else { return nil }
        return report(now: now, since: lastReport ?? now)
    }

    private mutating func report(now: ContinuousClock.Instant, since last: ContinuousClock.Instant) -> TransferProgress
    {
        let elapsed = (now - last).secondsAsDouble
        if elapsed > 0 {
            let sample = Double(unreported) / elapsed
            rate = rate.map { 0.3 * sample + 0.7 * $0 } ?? sample
        }
        let progress = TransferProgress(
            bytesWritten: unreported, totalBytesWritten: totalWritten, totalBytesExpectedToWrite: expectedTotal,
            bytesPerSecond: rate)
        unreported = 0
        lastReport = now
        return progress
    }
}
