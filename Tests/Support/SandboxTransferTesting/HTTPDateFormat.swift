import Foundation

/// HTTP dates (RFC 9110 §5.6.7, IMF-fixdate) for the headers the fault server sends.
public enum HTTPDateFormat {
    /// `date` as `Tue, 15 Nov 1994 08:12:31 GMT`.
    public static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The current time.
    public static func now() -> String { string(Date()) }
}
