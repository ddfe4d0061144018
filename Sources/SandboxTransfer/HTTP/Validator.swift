import Foundation
import SandboxCore

/// What identifies one version of a resource, so a resumed request continues only the same bytes:
/// a strong entity tag, or failing that a `Last-Modified` date that counts as strong.
///
/// A weak tag (`W/"…"`) is never used: RFC 9110 §13.1.5 forbids it in `If-Range`, and servers make
/// weak tags for re-encoded (gzip) bodies, whose byte offsets differ.
public enum Validator: Sendable, Hashable, Codable {
    /// A strong entity tag, with its quotes: `"5f1c-3a"`.
    case entityTag(String)
    /// An HTTP date as the server sent it: `Tue, 15 Nov 1994 08:12:31 GMT`.
    case lastModified(String)

    /// The value to send in `If-Range`.
    public var ifRangeValue: String {
        switch self {
        case .entityTag(let tag): tag
        case .lastModified(let date): date
        }
    }

    /// The strong validator of a response, the only kind `If-Range` may carry (RFC 9110 §13.1.5):
    /// its `ETag` when strong; when it sent no `ETag` at all, its `Last-Modified` when strong —
    /// at least a second older than the response's `Date` (§8.8.2.2; without a `Date` it cannot
    /// be shown strong); else `nil`. A weak `ETag` is never replaced by the date.
    public static func strongValidator(etag: String?, lastModified: String?, date: String?) -> Validator? {
        if let etag = etag.map(trimmingWhitespace), !etag.isEmpty {
            return isStrongEntityTag(etag) ? .entityTag(etag) : nil
        }
        guard let lastModified = lastModified.map(trimmingWhitespace),
            let modified = HTTPDate.parse(lastModified),
            let date, let sent = HTTPDate.parse(trimmingWhitespace(date)),
            sent.timeIntervalSince(modified) >= 1
        else { return nil }
        return .lastModified(lastModified)
    }

    /// Whether `tag` is a well-formed strong entity tag (RFC 9110 §8.8.3): `"` etagc* `"` without
    /// `W/`, where etagc is a visible ASCII character other than `"`, or `obs-text` — so never a
    /// quote, space, CR, LF, NUL or other control character inside. Checked on the UTF-8 bytes (a
    /// combining mark after a quote must not hide it).
    public static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = tag.utf8
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22 else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether `value`, an `ETag` or `Last-Modified` of a later response, names the same version.
    func matches(etag: String?, lastModified: String?) -> Bool {
        switch self {
        case .entityTag(let tag): etag.map(Self.trimmingWhitespace) == tag
        case .lastModified(let date): lastModified.map(Self.trimmingWhitespace) == date
        }
    }

    /// `value` without the whitespace (`CharacterSet.whitespaces`) at its ends; a value that
    /// starts and ends with a visible ASCII character, as header values do, is returned as it is
    /// without Foundation's trimming.
    static func trimmingWhitespace(_ value: String) -> String {
        let visible: ClosedRange<UInt8> = 0x21...0x7E
        if let first = value.utf8.first, let last = value.utf8.last, visible.contains(first), visible.contains(last) {
            return value
        }
        return value.trimmingCharacters(in: .whitespaces)
    }
}
