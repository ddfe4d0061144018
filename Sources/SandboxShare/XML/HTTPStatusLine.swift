import NIOHTTP1

/// The `HTTP/1.1 404 Not Found` lines of a multistatus body's `DAV:status` elements.
package enum HTTPStatusLine {
    /// `HTTP/1.1 <status> <reason>`, with SwiftNIO's reason phrase (WebDAV's 207, 423, 424 and 507
    /// included); a status without a known phrase has none.
    package static func line(_ status: Int) -> String {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        return "HTTP/1.1 \(status) \(reason)"
    }
}
