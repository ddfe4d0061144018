import AsyncHTTPClient
import Dispatch
import NIOCore
import Synchronization
import Tracing

/// The one place the package makes an `HTTPClient`: the downloads' sessions and the S3 repository
/// both get theirs here, configured alike, and each is owned by an ``HTTPClientOwner`` that shuts
/// it down.
///
/// Every client: nothing decompressed (the bytes are stored, hashed or signed as sent), timeouts
/// through NIO's `TimeAmount(Duration)`, which clamps (a timeout of years is not an overflow), the
/// process's singleton event loop group, and requests traced only when the process bootstrapped a
/// tracer (the no-op one still built a span, and parsed the URL again, per request).
package struct HTTPClientSettings: Sendable {
    /// How long a connection attempt may take.
    package var connectTimeout: Duration
    /// How long a response may go without a byte arriving.
    package var readTimeout: Duration
    /// Redirects followed (no cycles); 0 follows none (a signed request must not be redirected: the
    /// signature was made for its URL).
    package var maximumRedirects: Int
    /// Whether the pool retries a failed connection attempt itself (`false` where the caller
    /// retries, boundedly, on its own).
    package var retriesConnectionEstablishment: Bool
    /// Whether HTTP/2 is negotiated where the server offers it (`false`: HTTP/1.1 only).
    package var negotiatesHTTP2: Bool
    /// How many HTTP/1.1 connections to one host the pool opens and keeps alive for reuse; requests
    /// beyond that wait for one to be free.
    package var connectionsPerHost: Int

    package init(
        connectTimeout: Duration, readTimeout: Duration, maximumRedirects: Int,
        retriesConnectionEstablishment: Bool = true, negotiatesHTTP2: Bool = true, connectionsPerHost: Int = 8
    ) {
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.maximumRedirects = maximumRedirects
        self.retriesConnectionEstablishment = retriesConnectionEstablishment
        self.negotiatesHTTP2 = negotiatesHTTP2
        self.connectionsPerHost = max(1, connectionsPerHost)
    }

    /// The client these settings describe. The caller owns it and must shut it down: prefer
    /// ``HTTPClientOwner``, which does.
    package func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: maximumRedirects > 0
                ? .follow(max: maximumRedirects, allowCycles: false) : .disallow,
            timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(readTimeout)),
            decompression: .disabled
        )
        configuration.httpVersion = negotiatesHTTP2 ? .automatic : .http1Only
        configuration.connectionPool.retryConnectionEstablishment = retriesConnectionEstablishment
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        if InstrumentationSystem.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

/// An `HTTPClient` and the duty to shut it down: ``shutdown()`` when its user closes, or, when the
/// owner is released without it, a shutdown started from `deinit` (nothing left to report to).
/// A client handed in by a caller (`owned: false`) stays the caller's: the owner never shuts it.
package final class HTTPClientOwner: Sendable {
    package let client: HTTPClient
    private let owned: Bool
    private let shutDown = Mutex(false)

    /// Owns a new client made with `settings`.
    package init(_ settings: HTTPClientSettings) {
        client = settings.makeClient()
        owned = true
    }

    /// Borrows `client` (`nil`: owns a new one made with `settings`).
    package init(borrowing client: HTTPClient?, otherwise settings: HTTPClientSettings) {
        self.client = client ?? settings.makeClient()
        owned = client == nil
    }

    /// Shuts the client down (when owned) once; later calls return at once. Requests still running
    /// fail with AsyncHTTPClient's `cancelled`.
    package func shutdown() async {
        guard owned,
            shutDown.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        // Throws only when already shut down, or when closing idle connections failed: nothing is
        // left to release either way.
        try? await client.shutdown()
    }

    deinit {
        if owned && !shutDown.withLock({ $0 }) { client.shutdown(queue: .global()) { _ in } }
    }
}
