import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// The page's responses: pages and assets with their security headers, JSON, redirects.
enum WebResponses {
    /// The page's policy: its own script and style only, no inline script, no other origin, no
    /// framing.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func page(
        _ bytes: [UInt8], status: HTTPResponse.Status = .ok, type: String, headers: HTTPFields = [:]
    )
        -> Response
    {
        var headers = headers
        headers[.contentType] = type
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.cacheControl] = "no-store"
        // Not `no-referrer`: under it a browser sends `Origin: null` with the page's own form posts,
        // which the origin check cannot tell from an opaque attacker (`RequestSite`). `same-origin`
        // still sends nothing (not the session's folder) to any other origin.
        headers[.referrerPolicy] = "same-origin"
        headers[.contentLength] = "\(bytes.count)"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    )
        -> Response
    {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(value))
        } catch let failure {
            return error(SandboxError(.internalError, "The answer could not be encoded: \(failure)"))
        }
        var headers = headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        headers[.contentLength] = "\(bytes.count)"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `value` as one line of JSON (for an event's data); `{}` if it cannot be encoded.
    static func jsonText(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            return "{}"
        }
    }

    /// `{"error": {"code", "message"}}` with the error's status.
    static func error(_ error: SandboxError) -> Response {
        struct Body: Encodable {
            struct Detail: Encodable {
                let code: String
                let message: String
            }
            let error: Detail
        }
        var headers = HTTPFields()
        if let wait = error.retryAfter { headers[.retryAfter] = "\(wait.seconds)" }
        return json(
            Body(error: .init(code: error.code.rawValue, message: error.message)),
            status: HTTPResponse.Status(code: error.code.httpStatus), headers: headers)
    }

    static func redirect(to location: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.location] = location
        headers[.contentLength] = "0"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }
}
