import Foundation

/// What to download and how: the URL, extra headers, the digest to check, and optionally where to
/// put the finished file.
public struct DownloadRequest: Sendable, Hashable {
    /// An absolute `http` or `https` URL.
    public var url: URL
    /// Extra request headers (the session sets `Range`, `If-Range` and `Accept-Encoding` itself).
    public var headers: [String: String]
    /// The digest the file must have; checked before the file is handed over.
    public var expectedDigest: ExpectedDigest?
    /// Where the session moves the finished file itself (an atomic, crash-safe move); `nil` hands
    /// a temporary file to the delegate and the event stream instead.
    public var destination: DownloadDestination?

    /// A request for `url`; the other values as their properties say. The URL is checked when a task
    /// is made (``isSupported(_:)``).
    public init(
        url: URL, headers: [String: String] = [:], expectedDigest: ExpectedDigest? = nil,
        destination: DownloadDestination? = nil
    ) {
        self.url = url
        self.headers = headers
        self.expectedDigest = expectedDigest
        self.destination = destination
    }

    /// Whether the session can download `url`: absolute, `http` or `https`, with a host.
    public static func isSupported(_ url: URL?) -> Bool {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        return !(url.host ?? "").isEmpty
    }
}
