import Foundation
import Sandbox

/// The date formats of WebDAV's live properties.
package enum PropertyDates {
    /// `DAV:getlastmodified`: an HTTP date, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 4918 §15.7).
    package static func lastModified(_ date: Date) -> String { HTTPDate.format(date) }

    /// ``lastModified(_:)`` appended to `bytes` (a listing writes one an item).
    package static func appendLastModified(_ date: Date, to bytes: inout [UInt8]) {
        HTTPDate.append(date, to: &bytes)
    }

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
        CivilTime.appendDigits(time.year, 4, to: &bytes)
        bytes.append(0x2D)
        CivilTime.appendDigits(time.month, 2, to: &bytes)
        bytes.append(0x2D)
        CivilTime.appendDigits(time.day, 2, to: &bytes)
        bytes.append(0x54)  // T
        CivilTime.appendDigits(time.hour, 2, to: &bytes)
        bytes.append(0x3A)
        CivilTime.appendDigits(time.minute, 2, to: &bytes)
        bytes.append(0x3A)
        CivilTime.appendDigits(time.second, 2, to: &bytes)
        bytes.append(0x5A)  // Z
    }
}
