import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SandboxStore
import Synchronization

/// Data tasks: requests whose body comes back in memory or as a stream of chunks, as
/// `URLSession`'s `data(for:)` and `bytes(for:)`.
///
/// Requests go through the same client, request building and error mapping as downloads
/// (``DownloadSession``): the configuration's connect timeout, stall timeout (no byte for that
/// long fails with ``SandboxCore/SandboxError/Code/stalled``) and redirect limit, no decompression. Unlike
/// downloads, data tasks are not retried (a `POST` must not be sent twice) and keep nothing on
/// disk. Cancelling the Swift task that awaits one cancels its request.
public final class DataSession: Sendable {
    /// The timeouts and redirect limit requests use (its other values are for downloads).
    public let configuration: DownloadSession.Configuration
    let client: HTTPClient
    /// Whether ``client`` is the session's own, shut down by ``invalidate()`` or when released.
    private let ownsClient: Bool
    private let invalidated = Mutex(false)

    /// A session.
    ///
    /// - Parameters:
    ///   - configuration: connect and stall timeouts and the redirect limit;
    ///     ``DownloadSession/Configuration/standard`` by default.
    ///   - httpClient: the client to send requests with, owned by the caller, as in
    ///     ``DownloadSession/init(identifier:container:configuration:delegate:httpClient:logger:)``
    ///     (its own timeouts and redirect policy apply; it must not decompress). `nil`: the
    ///     session makes one from `configuration` and shuts it down when invalidated or released.
    public init(configuration: DownloadSession.Configuration = .standard, httpClient: HTTPClient? = nil) {
        self.configuration = configuration
        (client, ownsClient) = httpClient.map { ($0, false) } ?? (HTTPClient.forDownloads(configuration), true)
    }

    deinit {
        if ownsClient && !invalidated.withLock({ $0 }) {
            // no request or body is left (each holds the session); nothing to report from a deinit
            client.shutdown(queue: .global()) { _ in }
        }
    }

    /// Sends `request` and reads its whole body into memory.
    ///
    /// - Returns: the response, whatever its status (check ``DataResponse/isSuccess``), and its body.
    /// - Throws: `too-large` when the body is longer than
    ///   ``DataRequest/maximumSize`` (decided from `Content-Length` before reading when the server
    ///   announces it, else as soon as the bytes pass it); the errors of ``bytes(for:)`` and of
    ///   ``DataBody``.
    public func fetch(_ request: DataRequest) async throws(SandboxError) -> FetchedData {
        let streamed = try await bytes(for: request)
        var body = Data()
        body.reserveCapacity(Int(min(streamed.response.expectedContentLength ?? 0, request.maximumSize)))
        for try await chunk in streamed.body { body.append(chunk) }
        return FetchedData(response: streamed.response, body: body)
    }

    /// Sends `request` and returns once the response's head has arrived; the body is read as it
    /// is iterated (``DataBody``).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidURL`` unless the URL is absolute http(s);
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a header name or value that could break the
    ///   request, or a negative ``DataRequest/maximumSize``; `too-large` when
    ///   `Content-Length` announces more than the maximum size (nothing is read);
    ///   ``SandboxCore/SandboxError/Code/sessionInvalidated`` after ``invalidate()``;
    ///   ``SandboxCore/SandboxError/Code/network``, ``SandboxCore/SandboxError/Code/stalled``,
    ///   ``SandboxCore/SandboxError/Code/tooManyRedirects`` or ``SandboxCore/SandboxError/Code/cancelled`` when the
    ///   request fails.
    public func bytes(for request: DataRequest) async throws(SandboxError) -> StreamedData {
        let url = request.url.absoluteString
        try check(request)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(Self.clientRequest(for: request), deadline: .distantFuture)
        } catch {
            throw AttemptFailure.classify(error, url: url).error
        }
        let length = ResponseDecision.contentLength(response.headers)
        if let length, length > request.maximumSize {
            // the response is dropped unread: the client cancels the request and closes the connection
            throw DataBody.tooLarge(url, limit: request.maximumSize, size: length)
        }
        let head = DataResponse(
            status: Int(response.status.code), headers: response.headers, url: response.url ?? request.url,
            expectedContentLength: length)
        return StreamedData(
            response: head,
            body: DataBody(
                body: response.body, session: self, url: url, limit: request.maximumSize, expectedLength: length))
    }

    /// Shuts the session's own HTTP client down (a caller's client is left alone); the session
    /// sends nothing afterwards (``SandboxCore/SandboxError/Code/sessionInvalidated``). Requests in progress
    /// fail with ``SandboxCore/SandboxError/Code/network`` or ``SandboxCore/SandboxError/Code/cancelled``.
    public func invalidate() async {
        let first = invalidated.withLock { invalidated in
            defer { invalidated = true }
            return !invalidated
        }
        guard first, ownsClient else { return }
        do {
            try await client.shutdown()
        } catch {
            // Only when already shut down, or closing idle connections failed: nothing is left to release.
        }
    }

    /// The checks made before anything is sent.
    private func check(_ request: DataRequest) throws(SandboxError) {
        let url = request.url.absoluteString
        guard !invalidated.withLock({ $0 }) else {
            throw SandboxError(
                .sessionInvalidated, "The data session was invalidated; make a new one to fetch \(url).", url: url)
        }
        guard DownloadRequest.isSupported(request.url) else {
            throw SandboxError(.invalidURL, "'\(url)' is not an absolute http or https URL.", url: url)
        }
        for (name, value) in request.headers where !HeaderSyntax.isToken(name) || !HeaderSyntax.isFieldValue(value) {
            throw SandboxError(
                .invalidArgument,
                "The header '\(name.debugDescription)' of the request for \(url) is not a valid header name and value; remove control characters and separators.",
                url: url)
        }
        guard request.maximumSize >= 0 else {
            throw SandboxError(
                .invalidArgument, "The maximum size for \(url) is negative (\(request.maximumSize)).", url: url)
        }
    }

    /// The transfers' request (``HTTPClientRequest/transfer(url:headers:)``), a `POST` when there is a body.
    static func clientRequest(for request: DataRequest) -> HTTPClientRequest {
        var built = HTTPClientRequest.transfer(url: request.url.absoluteString, headers: request.headers)
        if let body = request.body {
            built.method = .POST
            built.body = .bytes(ByteBuffer(bytes: body))
        }
        return built
    }
}
