import Foundation

/// UTC timestamps as text, formatted and parsed in integer arithmetic on the proleptic Gregorian
/// calendar (``CivilTime``): no `ISO8601DateFormatter`, `DateFormatter`, `Calendar` or `gmtime_r`,
/// no locale and no time-zone database.
///
/// The ISO 8601 forms are those `ISO8601DateFormatter` wrote (`.withInternetDateTime`, with or
/// without `.withFractionalSeconds`): the instant rounded to the nearest millisecond, then cut to
/// the second for the whole-second form. Instants further than about 31 million years from 1970 are
/// clamped there rather than trapping.
package enum UTCTimestamp {
    /// The furthest second from 1970 formatted; beyond it the calendar arithmetic could overflow.
    private static let secondsLimit: Int64 = 1_000_000_000_000_000
    private static let millisecondsLimit: Int64 = secondsLimit * 1000

    /// `2024-01-02T03:04:05Z` (ISO 8601, RFC 3339).
    package static func iso8601(_ date: Date) -> String {
        let (seconds, _) = wholeMilliseconds(date).quotientAndFlooredRemainder(dividingBy: 1000)
        return iso8601(secondsSince1970: seconds)
    }

    /// `2024-01-02T03:04:05Z` for a whole second since 1970 (`time(nil)`, say).
    package static func iso8601(secondsSince1970 seconds: Int64) -> String {
        let time = CivilTime(secondsSince1970: clamped(seconds, secondsLimit))
        let digits = CivilTime.digits
        return "\(year(time.year))-\(digits(time.month, 2))-\(digits(time.day, 2))T"
            + "\(digits(time.hour, 2)):\(digits(time.minute, 2)):\(digits(time.second, 2))Z"
    }

    /// `2024-01-02T03:04:05.123Z`: to the millisecond, rounded to the nearest.
    package static func iso8601WithMilliseconds(_ date: Date) -> String {
        let (seconds, milliseconds) = wholeMilliseconds(date).quotientAndFlooredRemainder(dividingBy: 1000)
        let whole = iso8601(secondsSince1970: seconds)
        return "\(whole.dropLast()).\(CivilTime.digits(milliseconds, 3))Z"
    }

    /// `20240102T030405Z`, the ISO 8601 basic form (SigV4's `X-Amz-Date`): the second the instant
    /// falls in.
    package static func basic(_ date: Date) -> String {
        let time = CivilTime(secondsSince1970: flooredSeconds(date))
        let digits = CivilTime.digits
        return "\(year(time.year))\(digits(time.month, 2))\(digits(time.day, 2))T"
            + "\(digits(time.hour, 2))\(digits(time.minute, 2))\(digits(time.second, 2))Z"
    }

    /// `20240102`, the day of ``basic(_:)`` (SigV4's credential scope).
    package static func basicDay(_ date: Date) -> String {
        String(basic(date).prefix { $0 != "T" })
    }

    /// The civil time (UTC) of the second `date` falls in, as `gmtime_r` gives it.
    package static func civilTime(_ date: Date) -> CivilTime {
        CivilTime(secondsSince1970: flooredSeconds(date))
    }

    /// The instant an ISO 8601 date-time names — `2024-01-02T03:04:05Z`, with an optional fraction
    /// (`.1`, `.123`, `.123456`: kept to the millisecond, as `ISO8601DateFormatter` did) and `Z` or
    /// an offset (`+01:00`) — or `nil` for anything else: another shape, a non-ASCII byte, a month,
    /// day, hour, minute or second out of range (`2024-02-30` included; a leap second, `60`, too).
    package static func parseISO8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 20, let year = number(b, 0, 4), b[4] == 0x2D, let month = number(b, 5, 2), b[7] == 0x2D,
            let day = number(b, 8, 2), b[10] == 0x54 || b[10] == 0x74, let hour = number(b, 11, 2), b[13] == 0x3A,
            let minute = number(b, 14, 2), b[16] == 0x3A, let second = number(b, 17, 2),
            (1...12).contains(month), day >= 1, day <= ProlepticGregorian.daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var index = 19
        var milliseconds: Int64 = 0
        if b[index] == 0x2E {
            index += 1
            let start = index
            while index < b.count, let digit = digit(b[index]) {
                if index - start < 3 { milliseconds = milliseconds * 10 + digit }
                index += 1
            }
            guard index > start else { return nil }
            for _ in min(index - start, 3)..<3 { milliseconds *= 10 }
        }
        guard let offset = offsetSeconds(b, from: index) else { return nil }
        let days = ProlepticGregorian.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000)
    }

    /// The offset east of UTC in seconds that the rest of the text from `index` names: `Z`, `z`,
    /// `+HH:MM` or `-HH:MM`; `nil` for anything else, trailing bytes included.
    private static func offsetSeconds(_ b: [UInt8], from index: Int) -> Int64? {
        if b.count == index + 1, b[index] == 0x5A || b[index] == 0x7A { return 0 }
        guard b.count == index + 6, b[index] == 0x2B || b[index] == 0x2D, let hours = number(b, index + 1, 2),
            b[index + 3] == 0x3A, let minutes = number(b, index + 4, 2), hours <= 23, minutes <= 59
        else { return nil }
        let seconds = hours * 3_600 + minutes * 60
        return b[index] == 0x2B ? seconds : -seconds
    }

    private static func digit(_ byte: UInt8) -> Int64? {
        byte >= 0x30 && byte <= 0x39 ? Int64(byte - 0x30) : nil
    }

    /// `count` ASCII digits at `start` as a number, or `nil`.
    private static func number(_ b: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        guard start + count <= b.count else { return nil }
        var value: Int64 = 0
        for byte in b[start..<start + count] {
            guard let digit = digit(byte) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// The year, four digits at least, a minus sign before a year before 1 BC… as ISO 8601 writes.
    private static func year(_ value: Int64) -> String {
        value < 0 ? "-" + CivilTime.digits(-value, 4) : CivilTime.digits(value, 4)
    }

    /// The instant in milliseconds since 1970, rounded to the nearest, clamped (`NaN` is 1970).
    private static func wholeMilliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard !value.isNaN else { return 0 }
        return clamped(value, millisecondsLimit)
    }

    /// The whole second the instant falls in (rounding down), clamped (`NaN` is 1970).
    private static func flooredSeconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        guard !value.isNaN else { return 0 }
        return clamped(value, secondsLimit)
    }

    private static func clamped(_ value: Double, _ limit: Int64) -> Int64 {
        value >= Double(limit) ? limit : value <= -Double(limit) ? -limit : Int64(value)
    }

    private static func clamped(_ value: Int64, _ limit: Int64) -> Int64 {
        min(max(value, -limit), limit)
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity, and the remainder in `0 ..< divisor`.
    fileprivate func quotientAndFlooredRemainder(dividingBy divisor: Int64) -> (Int64, Int64) {
        let remainder = ((self % divisor) + divisor) % divisor
        return ((self - remainder) / divisor, remainder)
    }
}
