import Foundation
import Sandbox

/// The date formats of WebDAV's live properties.
package enum PropertyDates {
    /// `DAV:getlastmodified`: an HTTP date, `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 4918 §15.7).
    package static func lastModified(_ date: Date) -> String { HTTPDate.format(date) }

    /// `DAV:creationdate`: an RFC 3339 date-time in UTC, whole seconds, `1997-12-01T17:42:21Z`
    /// (RFC 4918 §15.1).
    package static func creationDate(_ date: Date) -> String {
        let time = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        let digits = CivilTime.digits
        return "\(digits(time.year, 4))-\(digits(time.month, 2))-\(digits(time.day, 2))T"
            + "\(digits(time.hour, 2)):\(digits(time.minute, 2)):\(digits(time.second, 2))Z"
    }
}
