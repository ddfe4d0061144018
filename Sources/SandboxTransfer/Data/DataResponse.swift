import Foundation
import NIOHTTP1

/// What the server answered to a data task, before its body: `HTTPURLResponse` of `URLSession`.
///
/// Every status comes back as it is, as with `URLSession`: a 404's page is a body too. Check
/// ``status`` (or ``isSuccess``) before using the body.
public struct DataResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// The response headers, as sent.
    public var headers: HTTPHeaders
    /// The URL that answered, after redirects.
    public var url: URL
    /// The body's length from `Content-Length`, `nil` when the server did not announce it.
    public var expectedContentLength: Int64?

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The `Content-Type` header, parsed; `nil` when it is absent or has no `type/subtype`.
    public var mediaType: MediaType? { headers.first(name: "content-type").flatMap(MediaType.init) }

    /// The first value of the header `name` (in any case), as `HTTPURLResponse.value(forHTTPHeaderField:)`.
    public func value(forHeader name: String) -> String? { headers.first(name: name) }
}

/// A data task's answer with its whole body in memory: what ``DataSession/fetch(_:)`` returns.
public struct FetchedData: Sendable {
    /// The status, headers and final URL.
    public var response: DataResponse
    /// The body, at most the request's ``DataRequest/maximumSize`` bytes.
    public var body: Data

    /// The body as text, with the charset of its byte-order mark, its `Content-Type`, or UTF-8
    /// (see ``DecodedText/init(decoding:contentType:)``); `nil` when `Content-Type` names a charset
    /// that is not supported and no byte-order mark says otherwise.
    public func text() -> DecodedText? {
        DecodedText(decoding: body, contentType: response.value(forHeader: "content-type"))
    }

    /// The image type and pixel size sniffed from the body's first bytes (no pixel is decoded);
    /// `nil` when the body is not a PNG, JPEG, GIF, WebP, HEIC/HEIF or AVIF image with a readable
    /// header.
    public var image: ImageInfo? { ImageInfo(sniffing: body) }
}

/// A data task's answer whose body arrives as it is read: what ``DataSession/bytes(for:)`` returns.
public struct StreamedData: Sendable {
    /// The status, headers and final URL.
    public var response: DataResponse
    /// The body's chunks. Iterate it once; the transfer waits while no one reads.
    public var body: DataBody
}
