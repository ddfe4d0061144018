import Foundation
import Sandbox
import Testing

@testable import SandboxShare

/// The writers a listing renders each item with append to its body what the string-returning
/// functions the rest of the share uses give, for hostile names and dates far from today.
@Suite struct PropfindWritersTests {
    @Test(arguments: [
        "/", "/plain.txt", "/a b/c%d", "/amp&<>\"'.txt", "/sub-delims!$()*+,;=:@", "/caf\u{E9}/\u{65E5}\u{672C}",
        "/tilde~_-.x/deeper",
    ])
    func hrefsAreEscapedInPlace(_ text: String) throws {
        let path = try SharePath(plainPath: text)
        for isCollection in [false, true] {
            var bytes: [UInt8] = Array("x".utf8)
            path.appendEscapedHref(isCollection: isCollection, to: &bytes)
            let expected = "x" + XMLText.escape(path.href(isCollection: isCollection))
            #expect(String(decoding: bytes, as: UTF8.self) == expected)
        }
    }

    @Test func datesAreWrittenDigitByDigit() {
        let dates: [(Double, String, String)] = [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT", "1970-01-01T00:00:00Z"),
            (-1, "Wed, 31 Dec 1969 23:59:59 GMT", "1969-12-31T23:59:59Z"),
            (951_868_799.999, "Tue, 29 Feb 2000 23:59:59 GMT", "2000-02-29T23:59:59Z"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT", "9999-12-31T23:59:59Z"),
            (253_402_300_800, "Sat, 01 Jan 10000 00:00:00 GMT", "10000-01-01T00:00:00Z"),
            (-62_135_596_800, "Mon, 01 Jan 0001 00:00:00 GMT", "0001-01-01T00:00:00Z"),
        ]
        for (seconds, http, iso) in dates {
            let date = Date(timeIntervalSince1970: seconds)
            var bytes: [UInt8] = []
            PropertyDates.appendLastModified(date, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == http)
            #expect(PropertyDates.lastModified(date) == http)
            #expect(PropertyDates.creationDate(date) == iso)
        }
        for value: Int64 in [0, 7, 42, 123, 999, 1000, 9999, 10_000, 123_456, -5] {
            for count in [1, 2, 4] {
                var bytes: [UInt8] = []
                CivilTime.appendDigits(value, count, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == CivilTime.digits(value, count), "\(value) \(count)")
            }
        }
    }
}
