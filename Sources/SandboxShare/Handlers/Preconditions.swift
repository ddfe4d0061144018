import Foundation
import HTTPTypes
import Sandbox

/// HTTP's conditional requests (RFC 9110 §13) on one item: `If-Match`, `If-Unmodified-Since`,
/// `If-None-Match`, `If-Modified-Since`, and `If-Range` for byte ranges. Entity tags are strong
/// (``EntityTag``); dates have whole seconds, as `Last-Modified` does.
enum Preconditions {
    /// The status a request's preconditions give — 412, or 304 for a read — or `nil` to go on.
    ///
    /// - Parameters:
    ///   - etag: the item's entity tag, or `nil` when there is no item.
    ///   - isRead: GET or HEAD (a failed `If-None-Match` is then 304, not 412).
    static func evaluate(_ headers: HTTPFields, etag: String?, modified: Date?, isRead: Bool) -> Int? {
        if let ifMatch = headers.fieldValue(.ifMatch) {
            guard let etag, matches(ifMatch, etag) else { return 412 }
        } else if let since = headers.fieldValue(.ifUnmodifiedSince).flatMap(HTTPDate.parse), let modified,
            wholeSeconds(modified) > wholeSeconds(since)
        {
            return 412
        }
        if let ifNoneMatch = headers.fieldValue(.ifNoneMatch) {
            if let etag, matches(ifNoneMatch, etag) { return isRead ? 304 : 412 }
        } else if isRead, let since = headers.fieldValue(.ifModifiedSince).flatMap(HTTPDate.parse), let modified,
            wholeSeconds(modified) <= wholeSeconds(since)
        {
            return 304
        }
        return nil
    }

    /// Whether a `Range` header should be honoured: always without `If-Range`, else only while
    /// it names the current entity tag or modification date.
    static func rangeApplies(_ headers: HTTPFields, etag: String, modified: Date) -> Bool {
        guard let ifRange = headers.fieldValue(.ifRange)?.trimmingSpaces else { return true }
        if ifRange.hasPrefix("\"") { return ifRange == etag }
        guard let date = HTTPDate.parse(String(ifRange)) else { return false }
        return wholeSeconds(modified) == wholeSeconds(date)
    }

    /// Whether the list `header` (`*` or comma-separated entity tags) names `etag`; weak tags
    /// compare by their opaque part (weak comparison, as `If-None-Match` asks).
    static func matches(_ header: String, _ etag: String) -> Bool {
        let strip: (Substring) -> Substring = { $0.hasPrefix("W/") ? $0.dropFirst(2) : $0 }
        return header.split(separator: ",").contains { candidate in
            let tag = String(candidate).trimmingSpaces
            return tag == "*" || strip(tag) == strip(Substring(etag))
        }
    }

    private static func wholeSeconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
