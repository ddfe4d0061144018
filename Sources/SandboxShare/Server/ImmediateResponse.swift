import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// A response made whole at once, its body (if any) already in memory: what the connection's
/// ``ImmediateReadHandler`` writes itself, and what Hummingbird is handed as a `Response`.
struct ImmediateResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// The body; `nil` for none (a HEAD, a 304, an empty status).
    var body: ByteBuffer?

    /// The same response for Hummingbird.
    var response: Response {
        Response(status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// The head the connection writes.
    var head: HTTPResponse { HTTPResponse(status: status, headerFields: headers) }

    /// A response of `status` with `body`.
    static func bytes(_ body: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> ImmediateResponse {
        var headers = headers
        headers[.contentLength] = "\(body.count)"
        return ImmediateResponse(
            status: HTTPResponse.Status(code: status), headers: headers, body: ByteBuffer(bytes: body))
    }

    /// A response of `status` with no body.
    static func empty(_ status: Int, headers: HTTPFields = HTTPFields()) -> ImmediateResponse {
        var headers = headers
        headers[.contentLength] = "0"
        return ImmediateResponse(status: HTTPResponse.Status(code: status), headers: headers, body: nil)
    }

    /// The response for `error`: its status, a short plain-text body (the message) or, when the
    /// error names a WebDAV condition, the RFC 4918 `DAV:error` body; `WWW-Authenticate` for 401,
    /// `Retry-After` for 429 and 503.
    static func error(_ error: SandboxError) -> ImmediateResponse {
        var headers = HTTPFields()
        let body: [UInt8]
        if let condition = error.condition {
            headers[.contentType] = "application/xml; charset=utf-8"
            body = Multistatus.errorBody(condition: condition, hrefs: error.lockRootHrefs)
        } else {
            headers[.contentType] = "text/plain; charset=utf-8"
            body = Array((error.message + "\n").utf8)
        }
        if error.code == .unauthorized {
            headers[.wwwAuthenticate] = #"Basic realm="Sandbox Documents", charset="UTF-8""#
        }
        if let wait = error.retryAfter { headers[.retryAfter] = "\(wait.seconds)" }
        return bytes(body, status: error.code.httpStatus, headers: headers)
    }
}
