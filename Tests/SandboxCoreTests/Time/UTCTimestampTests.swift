import Foundation
import SandboxCore
import SandboxTesting
import Testing

/// `UTCTimestamp` writes what `ISO8601DateFormatter` wrote (the formatter it replaced in four
/// places) and parses what it parsed, with the documented differences: dates before 1582 (the
/// formatter switched to the Julian calendar there), instants exactly half a millisecond past one
/// (the formatter's binary rounding went either way), and impossible days such as `2024-02-30` (the
/// formatter rolled them into March).
@Suite struct UTCTimestampTests {
    /// The formatter as the replaced code configured it (one per test: it is not `Sendable`).
    static func formatter(fractional: Bool) -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions =
            fractional ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return formatter
    }

    @Test func fixedInstants() {
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(UTCTimestamp.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(UTCTimestamp.iso8601WithMilliseconds(Date(timeIntervalSince1970: 1.0256)) == "1970-01-01T00:00:01.026Z")
        #expect(
            UTCTimestamp.iso8601WithMilliseconds(Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(secondsSince1970: 253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(UTCTimestamp.basic(Date(timeIntervalSince1970: 1_440_938_160.9)) == "20150830T123600Z")
        #expect(UTCTimestamp.basicDay(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830")
    }

    /// Instants from 1583 to 2400, a few thousand picked by a fixed generator, at whole seconds
    /// and with milliseconds away from the half-millisecond ties: the same text as Foundation.
    @Test func writesWhatTheFormatterWrote() {
        let (whole, fractional) = (Self.formatter(fractional: false), Self.formatter(fractional: true))
        var generator = SeededGenerator(seed: 27)
        let low: Int64 = -12_212_553_600  // 1583-01-01
        let high: Int64 = 13_569_465_600  // 2400-01-01
        for _ in 0..<5_000 {
            let second = low + Int64(generator.next() % UInt64(high - low))
            let millisecond = Double(generator.next() % 1000)
            let date = Date(timeIntervalSince1970: Double(second) + (millisecond + 0.25) / 1000)
            #expect(UTCTimestamp.iso8601(date) == whole.string(from: date), "\(date.timeIntervalSince1970)")
            #expect(
                UTCTimestamp.iso8601WithMilliseconds(date) == fractional.string(from: date),
                "\(date.timeIntervalSince1970)")
        }
    }

    @Test func parsesWhatTheFormatterParsed() {
        let (whole, fractional) = (Self.formatter(fractional: false), Self.formatter(fractional: true))
        var generator = SeededGenerator(seed: 1582)
        for _ in 0..<2_000 {
            let second = Int64(generator.next() % 20_000_000_000) - 5_000_000_000
            let date = Date(timeIntervalSince1970: Double(second) + Double(generator.next() % 1000) / 1000)
            let text = fractional.string(from: date)
            #expect(UTCTimestamp.parseISO8601(text) == fractional.date(from: text), "\(text)")
            let wholeText = whole.string(from: date)
            #expect(UTCTimestamp.parseISO8601(wholeText) == whole.date(from: wholeText), "\(wholeText)")
        }
        #expect(UTCTimestamp.parseISO8601("2024-01-02T03:04:05+01:30") == Date(timeIntervalSince1970: 1_704_159_245))
        #expect(UTCTimestamp.parseISO8601("2024-01-02t03:04:05.123456z")?.timeIntervalSince1970 == 1_704_164_645.123)
    }

    /// Text from outside (a manifest, a listing, a server): any other shape is `nil`, never a
    /// trap and never a date rolled into another month.
    @Test func refusesWhatIsNotADateTime() {
        let refused = [
            "", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02T03:04:05ZZ", "2024-01-02 03:04:05Z",
            "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z",
            "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:60Z",
            "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+24:00", "2024-01-01T00:00:00+01", "+024-01-01T00:00:00Z",
            "２０２４-01-01T00:00:00Z", "2024-01-01T00:00:00Z\u{0}", "9999999999-01-01T00:00:00Z",
        ]
        for text in refused { #expect(UTCTimestamp.parseISO8601(text) == nil, "'\(text)'") }
        #expect(UTCTimestamp.parseISO8601("2024-02-29T00:00:00Z") != nil)
        #expect(UTCTimestamp.parseISO8601("2000-02-29T23:59:59Z") != nil)
        #expect(UTCTimestamp.parseISO8601("1900-02-29T00:00:00Z") == nil)
    }

    /// Instants no calendar can write (far past, far future, not a number) are clamped, not trapped.
    @Test func extremeInstantsDoNotTrap() {
        for seconds in [Double.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1e300] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(!UTCTimestamp.iso8601(date).isEmpty)
            #expect(!UTCTimestamp.iso8601WithMilliseconds(date).isEmpty)
            #expect(!UTCTimestamp.basic(date).isEmpty)
        }
        #expect(UTCTimestamp.iso8601(secondsSince1970: .max) == UTCTimestamp.iso8601(secondsSince1970: .max - 1))
        #expect(UTCTimestamp.iso8601(secondsSince1970: .min).hasPrefix("-"))
    }
}
