import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and
/// the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`)
/// forms.
///
/// Parsed from the ASCII bytes with integer arithmetic, never with `DateFormatter`: a header is
/// hostile input, and `DateFormatter` traps on some non-ASCII text (a letter and a combining mark).
/// Formatted the same way, always in English and GMT, whatever the locale.
package enum HTTPDate {
    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The instant `text` names, or `nil` when it is not an HTTP date (any non-ASCII byte included).
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        return imfFixdate(bytes[...]) ?? rfc850(bytes[...]) ?? asctime(bytes[...])
    }

    /// `date` as an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT` (fractions of a second dropped,
    /// rounding down, as `Last-Modified` wants).
    package static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``format(_:)`` appended to `bytes` as ASCII, field by field, with no string made (a
    /// listing writes one an item).
    package static func append(_ date: Date, to bytes: inout [UInt8]) {
        let time = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        bytes += shortDays[time.weekday].utf8
        bytes += ", ".utf8
        CivilTime.appendDigits(time.day, 2, to: &bytes)
        bytes.append(0x20)
        bytes += months[Int(time.month) - 1].utf8
        bytes.append(0x20)
        CivilTime.appendDigits(time.year, 4, to: &bytes)
        bytes.append(0x20)
        CivilTime.appendDigits(time.hour, 2, to: &bytes)
        bytes.append(0x3A)
        CivilTime.appendDigits(time.minute, 2, to: &bytes)
        bytes.append(0x3A)
        CivilTime.appendDigits(time.second, 2, to: &bytes)
        bytes += " GMT".utf8
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func imfFixdate(_ b: ArraySlice<UInt8>) -> Date? {
        let s = b.startIndex
        guard b.count == 29, shortDays.contains(ascii(b, s, 3)), ascii(b, s + 3, 2) == ", ",
            let day = number(b, s + 5, 2), b[s + 7] == 0x20, let month = month(b, s + 8), b[s + 11] == 0x20,
            let year = number(b, s + 12, 4), b[s + 16] == 0x20, ascii(b, s + 25, 4) == " GMT"
        else { return nil }
        return date(year: year, month: month, day: day, time: b, at: s + 17)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year more than 50 years ahead is the last
    /// century's (RFC 9110 §5.6.7).
    private static func rfc850(_ b: ArraySlice<UInt8>) -> Date? {
        guard let comma = b.firstIndex(of: 0x2C), longDays.contains(ascii(b, b.startIndex, comma - b.startIndex)) else {
            return nil
        }
        let s = comma + 2
        guard b.endIndex - comma == 24, b[comma + 1] == 0x20, let day = number(b, s, 2), b[s + 2] == 0x2D,
            let month = month(b, s + 3), b[s + 6] == 0x2D, let twoDigits = number(b, s + 7, 2), b[s + 9] == 0x20,
            ascii(b, s + 18, 4) == " GMT"
        else { return nil }
        let currentYear = Int(Date().timeIntervalSince1970 / 31_556_952) + 1970
        var year = currentYear / 100 * 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return date(year: year, month: month, day: day, time: b, at: s + 10)
    }

    /// `Sun Nov  6 08:49:37 1994`.
    private static func asctime(_ b: ArraySlice<UInt8>) -> Date? {
        let s = b.startIndex
        guard b.count == 24, shortDays.contains(ascii(b, s, 3)), b[s + 3] == 0x20,
            let month = month(b, s + 4), b[s + 7] == 0x20, b[s + 10] == 0x20, b[s + 19] == 0x20,
            let year = number(b, s + 20, 4)
        else { return nil }
        let day = b[s + 8] == 0x20 ? number(b, s + 9, 1) : number(b, s + 8, 2)
        guard let day else { return nil }
        return date(year: year, month: month, day: day, time: b, at: s + 11)
    }

    /// The date at `HH:MM:SS` starting at `start` (a leap second, `60`, allowed) on a valid day.
    private static func date(year: Int, month: Int, day: Int, time b: ArraySlice<UInt8>, at start: Int) -> Date? {
        guard let hour = number(b, start, 2), b[start + 2] == 0x3A, let minute = number(b, start + 3, 2),
            b[start + 5] == 0x3A,
            let second = number(b, start + 6, 2), hour <= 23, minute <= 59, second <= 60,
            day >= 1, day <= ProlepticGregorian.daysIn(month: Int64(month), year: Int64(year))
        else { return nil }
        let days = ProlepticGregorian.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)))
    }

    /// The month (1…12) named by the three bytes at `start`.
    private static func month(_ b: ArraySlice<UInt8>, _ start: Int) -> Int? {
        months.firstIndex(of: ascii(b, start, 3)).map { $0 + 1 }
    }

    /// `count` ASCII digits at `start` as a number, or `nil`.
    private static func number(_ b: ArraySlice<UInt8>, _ start: Int, _ count: Int) -> Int? {
        guard start >= b.startIndex, start + count <= b.endIndex else { return nil }
        var value = 0
        for byte in b[start..<start + count] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// The `count` bytes at `start` as text ("" when out of bounds); the bytes are ASCII.
    private static func ascii(_ b: ArraySlice<UInt8>, _ start: Int, _ count: Int) -> String {
        guard count >= 0, start >= b.startIndex, start + count <= b.endIndex else { return "" }
        return String(decoding: b[start..<start + count], as: UTF8.self)
    }
}
