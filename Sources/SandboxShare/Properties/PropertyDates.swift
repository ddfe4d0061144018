import Foundation
import Sandbox

/// The date formats of WebDAV's live properties.
package enum PropertyDates {
    /// `DAV:getlastmodified`: an HTTP date, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 4918 §15.7).
    package static func lastModified(_ date: Date) -> String { HTTPDate.format(date) }

    /// ``lastModified(_:)`` appended to `bytes` as ASCII, field by field (a listing writes one an
    /// item; ``HTTPDate/format(_:)`` makes a string of each field).
    package static func appendLastModified(_ date: Date, to bytes: inout [UInt8]) {
        let time = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        bytes += shortDays[time.weekday]
        bytes += ", ".utf8
        appendDigits(time.day, 2, to: &bytes)
        bytes.append(0x20)
        bytes += months[Int(time.month) - 1]
        bytes.append(0x20)
        appendDigits(time.year, 4, to: &bytes)
        bytes.append(0x20)
        appendDigits(time.hour, 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(time.minute, 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(time.second, 2, to: &bytes)
        bytes += " GMT".utf8
    }

    private static let shortDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { Array($0.utf8) }

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
        appendDigits(time.year, 4, to: &bytes)
        bytes.append(0x2D)
        appendDigits(time.month, 2, to: &bytes)
        bytes.append(0x2D)
        appendDigits(time.day, 2, to: &bytes)
        bytes.append(0x54)  // T
        appendDigits(time.hour, 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(time.minute, 2, to: &bytes)
        bytes.append(0x3A)
        appendDigits(time.second, 2, to: &bytes)
        bytes.append(0x5A)  // Z
    }

    /// ``/SandboxCore/CivilTime/digits(_:_:)`` appended to `bytes` as ASCII, digit by digit, with
    /// no string made for a value from 0 to 9,999 (every field of a date from year 0 to 9999).
    static func appendDigits(_ value: Int64, _ count: Int, to bytes: inout [UInt8]) {
        guard value >= 0, value < 10_000 else {
            bytes += CivilTime.digits(value, count).utf8
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
