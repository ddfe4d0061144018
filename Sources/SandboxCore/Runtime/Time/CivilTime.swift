/// A UTC instant as calendar fields on the proleptic Gregorian calendar, for formatting dates
/// without `DateFormatter` (whose output follows the locale).
package struct CivilTime: Sendable, Equatable {
    package var year: Int64
    /// 1…12.
    package var month: Int64
    /// 1…31.
    package var day: Int64
    package var hour: Int64
    package var minute: Int64
    package var second: Int64
    /// 0 for Monday … 6 for Sunday.
    package var weekday: Int

    /// The fields of the whole second `seconds` after 1970-01-01T00:00:00Z (negative before).
    package init(secondsSince1970 seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        (year, month, day) = ProlepticGregorian.civil(fromDays: days)
        hour = time / 3_600
        minute = time / 60 % 60
        second = time % 60
        weekday = Int(((days % 7) + 7 + 3) % 7)  // 1970-01-01 was a Thursday
    }

    /// `value` in decimal, zero-padded to at least `count` digits.
    package static func digits(_ value: Int64, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(count - text.count, 0)) + text
    }

    /// ``digits(_:_:)`` appended to `bytes` as ASCII, digit by digit, with no string made for a
    /// value from 0 to 9,999 (every field of a date from year 0 to 9999).
    package static func appendDigits(_ value: Int64, _ count: Int, to bytes: inout [UInt8]) {
        guard value >= 0, value < 10_000 else {
            bytes += digits(value, count).utf8
            return
        }
        var divisor: Int64 = 1
        var width = 1
        while width < count || value / divisor >= 10 {
            divisor *= 10
            width += 1
        }
        while divisor > 0 {
            bytes.append(0x30 + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
