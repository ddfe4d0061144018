/// What the fault-injecting server serves at one path, and how it misbehaves.
public struct FaultResource: Sendable {
    /// The body (the representation's bytes).
    public var body: [UInt8]
    /// The `ETag` header exactly as sent (`"v1"` strong, `W/"v1"` weak), or `nil`.
    public var etag: String?
    /// The `Last-Modified` header, or `nil`.
    public var lastModified: String?
    /// Whether to send `Content-Length` (otherwise the body is chunked).
    public var sendsContentLength = true
    /// Whether a `Range` request gets a 206 (otherwise a 200 with the whole body).
    public var honoursRange = true
    /// Whether a 200 answer to a range request carries the range anyway (a 200 with `Content-Range`).
    public var saysOKForRanges = false
    /// Statuses answered (in order, one per request) before serving normally, e.g. `[503, 503]`.
    public var failures: [Int] = []
    /// The `Retry-After` sent with those failures.
    public var retryAfter: String?
    /// For request *i*, close the connection after sending `dropAfter[i]` body bytes.
    public var dropAfter: [Int] = []
    /// Body bytes per write, and the pause between writes (a slow server).
    public var chunkSize = 64 * 1024
    /// The pause after each write of ``chunkSize`` bytes, in milliseconds (0: none).
    public var chunkDelayMilliseconds = 0
    /// For request *i*, stop sending (without closing) after `stallAfter[i]` body bytes: a stalled
    /// server.
    public var stallAfter: [Int] = []
    /// Whether `If-Range` is evaluated (otherwise ranges are served whatever the validator).
    public var honoursIfRange = true
    /// `Content-Encoding` to claim (the body is sent as it is, whatever the request accepts).
    public var contentEncoding: String?
    /// A `Content-Disposition` header.
    public var contentDisposition: String?
    /// Answer every request with this status and an error page as the body.
    public var status: Int?
    /// Redirect (302) to this location instead of serving.
    public var redirectTo: String?
    /// Whether to send a `Date` header (real servers must, RFC 9110 §6.6.1), and its value (`nil`:
    /// the current time).
    public var sendsDate = true
    /// The `Date` header's value when ``sendsDate``; `nil` sends the current time.
    public var date: String?
    /// Answers range requests itself, given the range's start and the `If-Range` value, when it
    /// returns an answer (`nil` leaves the request to the flags above): for servers broken in ways
    /// the flags do not cover. Drops and stalls apply to its body as to any other.
    public var rangeAnswer: (@Sendable (_ start: Int, _ ifRange: String?) -> FaultAnswer?)?

    /// A well-behaved resource: `body` with these validators, every fault switched off.
    public init(body: [UInt8], etag: String? = nil, lastModified: String? = nil) {
        self.body = body
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A hand-made answer (see ``FaultResource/rangeAnswer``): sent exactly as given, plus `Date`.
public struct FaultAnswer: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in order, as given (name, value).
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]

    /// An answer with this status, these headers and this body.
    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// One request the fault server answered.
public struct RecordedRequest: Sendable {
    /// The request's path, as given to ``FaultServer/set(_:_:)``.
    public var path: String
    /// Its `Range` header, if any.
    public var range: String?
    /// Its `If-Range` header, if any.
    public var ifRange: String?
    /// Its `Accept-Encoding` header, if any.
    public var acceptEncoding: String?
    /// The status of the answer.
    public var status: Int
    /// Body bytes written to the socket.
    public var bodyBytesSent: Int
}
