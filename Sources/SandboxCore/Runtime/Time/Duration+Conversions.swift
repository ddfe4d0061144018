import Glibc

/// A `Duration` in the units system calls and logs take, every conversion clamped: a duration of
/// `Int64.max` seconds (a caller's "forever") or a negative one never traps, it saturates.
///
/// `Duration.components` gives `seconds` and `attoseconds` separately; multiplying the seconds by
/// 1,000 to get milliseconds overflows `Int64` past 292 million years, and Swift traps on overflow.
/// These convert through the 128-bit attosecond count instead. For NIO, use
/// `TimeAmount(Duration)`, which clamps too.
extension Duration {
    private static let attosecondsPerNanosecond: Int128 = 1_000_000_000
    private static let attosecondsPerMicrosecond: Int128 = 1_000_000_000_000
    private static let attosecondsPerMillisecond: Int128 = 1_000_000_000_000_000
    private static let attosecondsPerSecond: Int128 = 1_000_000_000_000_000_000

    /// Whole milliseconds, rounded toward zero, clamped to `Int64`.
    package var clampedMilliseconds: Int64 {
        Int64(clamping: attoseconds / Self.attosecondsPerMillisecond)
    }

    /// Whole milliseconds, rounded up (away from zero for a positive duration), clamped to `Int64`.
    package var clampedMillisecondsRoundedUp: Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerMillisecond)
        return Int64(clamping: remainder > 0 ? quotient + 1 : quotient)
    }

    /// Whole seconds, rounded toward zero (as `components.seconds`), clamped to `Int64`.
    package var clampedSeconds: Int64 {
        Int64(clamping: attoseconds / Self.attosecondsPerSecond)
    }

    /// Whole microseconds, rounded toward zero, clamped to `Int64`.
    package var clampedMicroseconds: Int64 {
        Int64(clamping: attoseconds / Self.attosecondsPerMicrosecond)
    }

    /// Whole nanoseconds, rounded toward zero, clamped to `Int64`.
    package var clampedNanoseconds: Int64 {
        Int64(clamping: attoseconds / Self.attosecondsPerNanosecond)
    }

    /// Whole seconds, rounded up (a partial second counts as one), clamped to `Int64`.
    package var clampedSecondsRoundedUp: Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerSecond)
        return Int64(clamping: remainder > 0 ? quotient + 1 : quotient)
    }

    /// The duration in seconds as a `Double` (never traps; precision falls with size).
    package var secondsAsDouble: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A `poll(2)` or `epoll_wait(2)` timeout: milliseconds rounded toward zero, within
    /// `0...Int32.max` (a negative duration is 0, never -1, which would mean "forever").
    package var pollTimeout: Int32 {
        Int32(clamping: max(clampedMilliseconds, 0))
    }

    /// A `timespec` for `nanosleep` and friends: a negative duration is zero, a huge one
    /// `Int.max` seconds.
    package var timespec: Glibc.timespec {
        guard self > .zero else { return Glibc.timespec(tv_sec: 0, tv_nsec: 0) }
        let (seconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerSecond)
        guard seconds <= Int128(Int.max) else { return Glibc.timespec(tv_sec: .max, tv_nsec: 999_999_999) }
        return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(remainder / Self.attosecondsPerNanosecond))
    }

    /// A `timeval` for `SO_RCVTIMEO`, `SO_SNDTIMEO` and friends: a negative duration is zero (which
    /// for a socket timeout means "no timeout"), a huge one `Int.max` seconds.
    package var timeval: Glibc.timeval {
        guard self > .zero else { return Glibc.timeval(tv_sec: 0, tv_usec: 0) }
        let (seconds, remainder) = attoseconds.quotientAndRemainder(dividingBy: Self.attosecondsPerSecond)
        guard seconds <= Int128(Int.max) else { return Glibc.timeval(tv_sec: .max, tv_usec: 999_999) }
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(remainder / Self.attosecondsPerMicrosecond))
    }
}
