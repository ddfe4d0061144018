import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// Responses the methods share: errors, XML bodies, empty statuses (made as ``ImmediateResponse``s).
enum ShareResponses {
    /// The response for `error` (``ImmediateResponse/error(_:)``).
    static func error(_ error: SandboxError) -> Response { ImmediateResponse.error(error).response }

    /// A response of `status` with `body`.
    static func bytes(_ body: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        ImmediateResponse.bytes(body, status: status, headers: headers).response
    }

    /// An XML response (a multistatus, a lock discovery).
    static func xml(_ body: [UInt8], status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers
        headers[.contentType] = "application/xml; charset=utf-8"
        return bytes(body, status: status, headers: headers)
    }

    /// A response of `status` with no body.
    static func empty(_ status: Int, headers: HTTPFields = HTTPFields()) -> Response {
        ImmediateResponse.empty(status, headers: headers).response
    }
}
