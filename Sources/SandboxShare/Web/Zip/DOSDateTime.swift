import Foundation
import Sandbox

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
        let time = CivilTime(secondsSince1970: Int64(seconds))
        self.init(
            year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hour),
            minute: Int(time.minute), second: Int(time.second))
    }
}
