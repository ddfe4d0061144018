import Foundation

extension Date {
    /// The instant `seconds` and `nanoseconds` after 1970 (a `statx` or a snapshot's time), to
    /// `Date`'s precision (a `Double` of seconds: about a quarter of a microsecond today).
    package init(secondsSince1970 seconds: Int64, nanoseconds: some BinaryInteger) {
        self.init(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// The instant in nanoseconds since 1970, rounded to the nearest; 0 when that does not fit an
    /// `Int64` (before 1678 or after 2262) or the date is not a number. An entity tag's time.
    package var roundedNanosecondsSince1970: Int64 {
        Int64(exactly: (timeIntervalSince1970 * 1_000_000_000).rounded()) ?? 0
    }
}
