import Foundation
import Testing

@testable import SandboxShare

@Suite struct DOSDateTimeTests {
    /// 2026-11-24 13:05:07 UTC: seconds round down to an even number.
    @Test func fieldsOfAKnownTime() {
        let instant = Date(timeIntervalSince1970: 1_795_525_507)
        let time = DOSDateTime(instant, secondsFromGMT: 0)
        #expect(time.date == UInt16(2026 - 1980) << 9 | 11 << 5 | 24)
        #expect(time.time == 13 << 11 | 5 << 5 | 3)
        // An hour east: the wall clock says 14:05.
        #expect(DOSDateTime(instant, secondsFromGMT: 3600).time == 14 << 11 | 5 << 5 | 3)
        // A leap day, and the day before the epoch with a negative offset.
        #expect(DOSDateTime(Date(timeIntervalSince1970: 951_782_400), secondsFromGMT: 0).date == 20 << 9 | 2 << 5 | 29)
        #expect(DOSDateTime(year: 1980, month: 1, day: 1, hour: 0, minute: 0, second: 1) == .earliest)
    }

    @Test func timesOutsideDOSRangeAreClampedNotWrapped() {
        #expect(DOSDateTime(Date(timeIntervalSince1970: 0), secondsFromGMT: 0) == .earliest)
        #expect(DOSDateTime(Date(timeIntervalSince1970: -1e15), secondsFromGMT: 0) == .earliest)
        #expect(DOSDateTime(Date.distantPast, secondsFromGMT: 0) == .earliest)
        // 2108-01-01 and far beyond.
        #expect(DOSDateTime(Date(timeIntervalSince1970: 4_354_819_200), secondsFromGMT: 0) == .latest)
        #expect(DOSDateTime(Date.distantFuture, secondsFromGMT: 0) == .latest)
        #expect(DOSDateTime.earliest.date == 1 << 5 | 1 && DOSDateTime.earliest.time == 0)
        #expect(DOSDateTime.latest.date == 127 << 9 | 12 << 5 | 31)
        #expect(DOSDateTime.latest.time == 23 << 11 | 59 << 5 | 29)
        // The last second DOS holds is kept.
        let last = DOSDateTime(Date(timeIntervalSince1970: 4_354_819_199), secondsFromGMT: 0)
        #expect(last == .latest)
        #expect(DOSDateTime(Date(timeIntervalSince1970: 315_532_800), secondsFromGMT: 0) == .earliest)
    }
}
