import Foundation
import Sandbox

/// The date formats of WebDAV's live properties.
package enum PropertyDates {
    /// `DAV:getlastmodified`: an HTTP date, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 4918 §15.7).
    package static func lastModified(_ date: Date) -> String { HTTPDate.format(date) }

    /// `DAV:creationdate`: an RFC 3339 date-time in UTC, whole seconds, `1997-12-01T17:42:21Z`
    /// (RFC 4918 §15.1).
    package static func creationDate(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendCreationDate(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``creationDate(_:)`` appended to `bytes`, digit by digit.
    package static func appendCreationDate(_ date: Date, to bytes: inout [UInt8]) {
        let time = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        func digits(_ value: Int64, _ count: Int) {
            guard value >= 0, value < 10_000 else {
                bytes += CivilTime.digits(value, count).utf8
                return
            }
            var divisor: Int64 = count == 4 ? 1000 : 10
            while divisor > 0 {
                bytes.append(0x30 + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(time.year, 4)
        bytes.append(0x2D)
        digits(time.month, 2)
        bytes.append(0x2D)
        digits(time.day, 2)
        bytes.append(0x54)  // T
        digits(time.hour, 2)
        bytes.append(0x3A)
        digits(time.minute, 2)
        bytes.append(0x3A)
        digits(time.second, 2)
        bytes.append(0x5A)  // Z
    }
}
