/// The `HTTP/1.1 404 Not Found` lines of a multistatus body's `DAV:status` elements.
package enum HTTPStatusLine {
    /// `HTTP/1.1 <status> <reason>`; a status without a known reason phrase has none.
    package static func line(_ status: Int) -> String {
        guard let reason = reasons[status] else { return "HTTP/1.1 \(status) " }
        return "HTTP/1.1 \(status) \(reason)"
    }

    private static let reasons: [Int: String] = [
        200: "OK", 201: "Created", 204: "No Content", 207: "Multi-Status", 301: "Moved Permanently",
        302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 412: "Precondition Failed",
        413: "Content Too Large", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        421: "Misdirected Request", 422: "Unprocessable Content", 423: "Locked", 424: "Failed Dependency",
        429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 507: "Insufficient Storage",
    ]
}
