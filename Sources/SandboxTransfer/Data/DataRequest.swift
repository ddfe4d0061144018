import Foundation

/// A data task's request: `dataTask(with:)` of `URLSession`, whose body comes back in memory
/// (``DataSession/fetch(_:)``) or as a stream of chunks (``DataSession/bytes(for:)``).
public struct DataRequest: Sendable, Hashable {
    /// An absolute `http` or `https` URL.
    public var url: URL
    /// Extra request headers. The session sets `Accept-Encoding: identity` itself: bodies arrive as
    /// sent, never decompressed.
    public var headers: [String: String]
    /// The request body: sent with `POST` when set (its type in ``headers``' `Content-Type`);
    /// `nil` sends a `GET`.
    public var body: Data?
    /// The most body bytes the task accepts. A longer body fails with
    /// `too-large`: before any byte is read when `Content-Length` announces
    /// it, as soon as the limit is passed otherwise; never more than this is kept in memory.
    public var maximumSize: Int64

    /// 16 MiB: the default ``maximumSize``.
    public static let defaultMaximumSize: Int64 = 16 << 20

    /// A request for `url`; the other values as their properties say. The URL and headers are
    /// checked when the request is sent.
    public init(
        url: URL, headers: [String: String] = [:], body: Data? = nil,
        maximumSize: Int64 = DataRequest.defaultMaximumSize
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.maximumSize = maximumSize
    }
}
