import Foundation

/// A ZIP entry's modification time as MS-DOS stores it: local time, two-second resolution, years
/// 1980 to 2107 only.
///
/// Times outside that span are clamped to its ends (1980-01-01 00:00:00 and 2107-12-31 23:59:58)
/// rather than wrapped into a wrong year.
struct DOSDateTime: Sendable, Hashable {
    /// Bits 15–9: years since 1980; 8–5: month; 4–0: day.
    let date: UInt16
    /// Bits 15–11: hours; 10–5: minutes; 4–0: seconds / 2.
    let time: UInt16

    /// The earliest time DOS can store.
    static let earliest = DOSDateTime(date: 0 << 9 | 1 << 5 | 1, time: 0)
    /// The latest time DOS can store.
    static let latest = DOSDateTime(date: 127 << 9 | 12 << 5 | 31, time: 23 << 11 | 59 << 5 | 29)

    private init(date: UInt16, time: UInt16) {
        self.date = date
        self.time = time
    }

    /// The calendar time given (Gregorian, already in the time zone wanted), clamped to
    /// 1980...2107; odd seconds round down.
    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        if year < 1980 {
            self = .earliest
        } else if year > 2107 {
            self = .latest
        } else {
            date = UInt16(year - 1980) << 9 | UInt16(month) << 5 | UInt16(day)
            time = UInt16(hour) << 11 | UInt16(minute) << 5 | UInt16(second / 2)
        }
    }

    /// `instant` as wall-clock time `secondsFromGMT` east of UTC, clamped to 1980...2107.
    init(_ instant: Date, secondsFromGMT: Int) {
        let seconds = instant.timeIntervalSince1970.rounded(.down) + Double(secondsFromGMT)
        // Out of any range a DOS time can hold, and of what Int holds: clamp before converting.
        guard seconds > -1e12 else {
            self = .earliest
            return
        }
        guard seconds < 1e12 else {
            self = .latest
            return
        }
        let total = Int(seconds)
        let (days, second) = total.floorDivided(by: 86_400)
        let (year, month, day) = Self.civil(fromDaysSince1970: days)
        self.init(
            year: year, month: month, day: day, hour: second / 3600, minute: second / 60 % 60, second: second % 60)
    }

    /// The Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDaysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let (era, dayOfEra) = shifted.floorDivided(by: 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension Int {
    /// The quotient rounded toward negative infinity, and the remainder in `0 ..< divisor`.
    fileprivate func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = ((self % divisor) + divisor) % divisor
        return ((self - remainder) / divisor, remainder)
    }
}
