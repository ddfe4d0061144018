import Glibc

/// Exponential back-off: the delay before retry `n` (0 for the first) is `initial × multiplierⁿ`,
/// capped at `maximum`. Saturating, never trapping: `Duration * Double` traps when the product leaves
/// the range of a `Duration` (the 1,026th doubling of 250 ms does, and one retry of a huge initial
/// delay), so the growth is compared with the cap in seconds first, and anything past it is the cap.
package struct Backoff: Sendable, Hashable {
    package var initial: Duration
    package var maximum: Duration
    /// How much each delay grows (1: a constant delay).
    package var multiplier: Double

    package init(initial: Duration, maximum: Duration, multiplier: Double = 2) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
    }

    /// The delay before retry `retry` (0 for the first, a negative number counts as 0), capped at
    /// ``maximum``.
    package func delay(retry: Int) -> Duration {
        let growth = pow(multiplier, Double(max(retry, 0)))
        let uncapped = initial.secondsAsDouble * growth
        guard uncapped.isFinite, uncapped < maximum.secondsAsDouble else { return maximum }
        return min(initial * growth, maximum)
    }

    /// `delay × factor` (a jitter), never above `ceiling` and never trapping (a product past the
    /// range of a `Duration`, or not a number, is `ceiling`).
    package static func scaled(_ delay: Duration, by factor: Double, atMost ceiling: Duration) -> Duration {
        let seconds = delay.secondsAsDouble * factor
        guard seconds.isFinite, seconds < ceiling.secondsAsDouble else { return ceiling }
        // `Duration * Double` goes through a Double, whose rounding could give a little more.
        return min(delay * factor, ceiling)
    }
}
