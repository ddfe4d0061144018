import Foundation
import SandboxCore

/// When and how often a failed transfer is tried again: exponential back-off with jitter, capped,
/// and the server's `Retry-After` honoured. Every retry continues from the bytes on disk.
///
/// Retried: 408, 429, 500, 502, 503, 504, a reset or refused connection, a stalled transfer (no
/// byte for ``DownloadSession/Configuration/stallTimeout``), a body cut short.
public struct RetryPolicy: Sendable, Hashable {
    /// Tries in all, the first included (1: never retry).
    public var maximumAttempts: Int
    /// The delay before the second try.
    public var initialDelay: Duration
    /// The longest delay, also for `Retry-After`.
    public var maximumDelay: Duration
    /// How much each delay grows.
    public var multiplier: Double
    /// The fraction of each delay that is random (0…1): `delay × (1 - jitter + jitter × random)`.
    public var jitter: Double

    /// A policy; each value as its property says. Fewer than 1 attempt counts as 1, a multiplier below 1
    /// as 1, and the jitter is kept within 0…1.
    public init(
        maximumAttempts: Int = 6, initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(30),
        multiplier: Double = 2, jitter: Double = 0.5
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = max(1, multiplier)
        self.jitter = min(1, max(0, jitter))
    }

    /// The default: six tries, 250 ms doubling up to 30 s, half of it random.
    public static let standard = RetryPolicy()
    /// One try only.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// The wait before try number `attempt` (2 for the first retry), or `nil` when no try is left.
    ///
    /// - Parameters:
    ///   - attempt: the number of the try about to be made: 2 for the first retry.
    ///   - retryAfter: the server's `Retry-After`, already converted to a duration; it replaces the
    ///     computed back-off (capped at ``maximumDelay``).
    ///   - random: a number in 0…1 for the jitter.
    public func delay(beforeAttempt attempt: Int, retryAfter: Duration? = nil, random: Double) -> Duration? {
        guard attempt >= 2, attempt <= maximumAttempts else { return nil }
        if let retryAfter { return min(max(retryAfter, .zero), maximumDelay) }
        let capped = Backoff(initial: initialDelay, maximum: maximumDelay, multiplier: multiplier)
            .delay(retry: attempt - 2)
        return Backoff.scaled(capped, by: 1 - jitter + jitter * min(1, max(0, random)), atMost: capped)
    }

    /// A `Retry-After` value (seconds, or an HTTP date) as a duration from `now`; `nil` when it does
    /// not parse.
    public static func retryAfter(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(decimal: Substring(text)) { return .seconds(seconds) }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000))
    }
}
