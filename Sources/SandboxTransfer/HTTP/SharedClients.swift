import AsyncHTTPClient
import NIOCore
import Synchronization

/// One `HTTPClient` per distinct set of timeouts and redirect limit, shared by every session of the
/// process and never shut down (like `HTTPClient.shared`): sessions come and go, connection pools
/// stay warm, and no session has to outlive its client.
enum SharedClients {
    struct Key: Hashable, Sendable {
        var stallTimeout: Duration
        var connectTimeout: Duration
        var maximumRedirects: Int
    }

    private static let clients = Mutex<[Key: HTTPClient]>([:])

    static func client(for configuration: DownloadSession.Configuration) -> HTTPClient {
        let key = Key(
            stallTimeout: configuration.stallTimeout, connectTimeout: configuration.connectTimeout,
            maximumRedirects: configuration.maximumRedirects)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var settings = HTTPClient.Configuration(
                redirectConfiguration: key.maximumRedirects > 0 ? .follow(max: key.maximumRedirects, allowCycles: false) : .disallow,
                timeout: .init(connect: TimeAmount(key.connectTimeout), read: TimeAmount(key.stallTimeout)),
                decompression: .disabled
            )
            settings.httpVersion = .automatic
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
            clients[key] = client
            return client
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
