import Foundation
import Testing

@testable import SandboxCore

/// The runtime's conversions between `Date` and seconds and nanoseconds since 1970 (file times,
/// snapshot times, entity tags).
@Suite struct DateNanosecondsTests {
    @Test func nanosecondsRoundToTheNearestAndWhatDoesNotFitIsZero() {
        #expect(Date(timeIntervalSince1970: 0).roundedNanosecondsSince1970 == 0)
        #expect(Date(timeIntervalSince1970: 1.5).roundedNanosecondsSince1970 == 1_500_000_000)
        #expect(Date(timeIntervalSince1970: -2.25).roundedNanosecondsSince1970 == -2_250_000_000)
        #expect(Date(timeIntervalSince1970: 1e-10).roundedNanosecondsSince1970 == 0)
        #expect(Date(timeIntervalSince1970: 9.3e9).roundedNanosecondsSince1970 == 0, "after 2262")
        #expect(Date(timeIntervalSince1970: -9.3e9).roundedNanosecondsSince1970 == 0, "before 1678")
        #expect(Date(timeIntervalSince1970: .nan).roundedNanosecondsSince1970 == 0)
        #expect(Date(timeIntervalSince1970: .infinity).roundedNanosecondsSince1970 == 0)
    }

    @Test func secondsAndNanosecondsMakeTheSameDateAsTheirSum() {
        let date = Date(secondsSince1970: 1_700_000_000, nanoseconds: 250_000_000 as UInt32)
        #expect(date == Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(Date(secondsSince1970: -1, nanoseconds: 500_000_000 as Int64) == Date(timeIntervalSince1970: -0.5))
        // A file time survives the round trip to an entity tag's nanoseconds at Date's precision.
        let file = Date(secondsSince1970: 1_764_000_000, nanoseconds: 123_456_789 as Int64)
        #expect(abs(file.roundedNanosecondsSince1970 - 1_764_000_000_123_456_789) < 1_000)
    }
}
