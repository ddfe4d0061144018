import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// Responses the methods share: errors, XML bodies, empty statuses.
enum ShareResponses {
    /// The response for `error`: its status, a short plain-text body (the message) or, when the
    /// error names a WebDAV condition, the RFC 4918 `DAV:error` body; `WWW-Authenticate` for 401,
    /// `Retry-After` for 429 and 503.
    static func error(_ error: SandboxError) -> Response {
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

    /// A response of `status` with `body`.
    static func bytes(_ body: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentLength] = "\(body.count)"
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An XML response (a multistatus, a lock discovery).
    static func xml(_ body: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentType] = "application/xml; charset=utf-8"
        return bytes(body, status: status, headers: headers)
    }

    /// A response of `status` with no body.
    static func empty(_ status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentLength] = "0"
        return Response(status: HTTPResponse.Status(code: status), headers: headers)
    }
}
