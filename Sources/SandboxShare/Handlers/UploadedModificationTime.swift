import Foundation
import HTTPTypes
import Sandbox

/// The modification time a client gives a file it writes: ownCloud's `X-OC-Mtime` on a PUT (what
/// rclone's `webdav` backend with `vendor=owncloud` or `nextcloud`, the Nextcloud clients and the
/// share's page send), or a PROPPATCH of `DAV:lastmodified` (Unix seconds, what rclone and the
/// Nextcloud clients send when only the time changed) or `DAV:getlastmodified` (an HTTP date).
///
/// A time is Unix seconds, a decimal fraction of up to nine digits allowed (`1700000000.123`: a
/// browser's `File.lastModified` is in milliseconds), from the epoch to the last second of year
/// 9999 (past it, `getlastmodified` would need a five-digit year). Anything else — a sign, a
/// `0x`, spaces inside, an exponent, an empty value, several values — is refused, never rounded
/// into some other time.
enum UploadedModificationTime {
    /// The last second of year 9999.
    static let latest: Int64 = 253_402_300_799

    /// The properties a PROPPATCH may set to change the item's modification time.
    static let properties: Set<PropertyName> = [.dav("lastmodified"), .dav("getlastmodified")]

    /// The time a PUT asks for in `X-OC-Mtime` (since the epoch), or `nil` when it has none.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` (400) for a value that is not
    ///   a time (see the type), or for several of them.
    static func requested(by fields: HTTPFields, path: SharePath) throws(SandboxError) -> Duration? {
        let values = fields[values: .xOCMtime]
        guard let value = values.first else { return nil }
        guard values.count == 1 else {
            throw SandboxError(
                .malformedRequest, "The upload of '\(path)' has \(values.count) X-OC-Mtime headers; send one.",
                path: path.description)
        }
        guard let time = seconds(value) else {
            throw SandboxError(
                .malformedRequest,
                "X-OC-Mtime '\(value.prefix(40))' is not a time: send Unix seconds from 0 to \(latest) "
                    + "(a decimal fraction allowed); nothing was stored.",
                path: path.description)
        }
        return time
    }

    /// The time a PROPPATCH sets `property` (one of ``properties``) to, or `nil` when `value` is
    /// not one: Unix seconds for `DAV:lastmodified`, an HTTP date for `DAV:getlastmodified`.
    static func value(of property: PropertyName, _ value: String) -> Date? {
        let text = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard property == .dav("getlastmodified") else {
            return seconds(text).map { Date(timeIntervalSince1970: $0.secondsAsDouble) }
        }
        guard let date = HTTPDate.parse(text), date.timeIntervalSince1970 >= 0,
            date.timeIntervalSince1970 <= Double(latest)
        else { return nil }
        return date
    }

    /// `text` as Unix seconds with an optional fraction (see the type), or `nil`.
    static func seconds(_ text: String) -> Duration? {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard let whole = parts.first, (1...12).contains(whole.count), whole.allSatisfy(isDigit) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...9).contains(digits.count), digits.allSatisfy(isDigit) else { return nil }
            for byte in digits { fraction = fraction * 10 + Int(byte - UInt8(ascii: "0")) }
            for _ in digits.count..<9 { fraction *= 10 }
        }
        var value: Int64 = 0
        for byte in whole { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
        guard value <= latest else { return nil }
        return .seconds(value) + .nanoseconds(fraction)
    }
}
