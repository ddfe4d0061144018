import AsyncHTTPClient
import Logging
import Sandbox

/// One HTTP client, with one connection pool, for every download session `sandboxd` hosts.
///
/// A session that makes its own client keeps it, its pool and its idle connections until the
/// session ends — for the daemon, until it exits: ~2.8 MiB for each background session it ever
/// opened (BENCHMARKS.md, issue 13). The daemon's sessions share one configuration, so they share
/// one client too, and connections to a host are reused across sessions.
package final class SharedDownloadClient: Sendable {
    let client: HTTPClient

    /// A client with `configuration`'s timeouts and redirect limit, as a session would make.
    package init(_ configuration: DownloadSession.Configuration) {
        client = .forDownloads(configuration)
    }

    /// Shuts the client down; call it once, after every session using it is done.
    ///
    /// - Throws: AsyncHTTPClient's error when the client was shut down already.
    package func shutdown() async throws {
        try await client.shutdown()
    }
}

extension DownloadSession {
    /// A session that sends its requests with `shared` (which it never shuts down).
    ///
    /// - Throws: as ``init(identifier:container:configuration:delegate:httpClient:logger:)``.
    package convenience init(
        identifier: String, container: Container, configuration: Configuration, sharing shared: SharedDownloadClient,
        logger: Logger
    ) throws(SandboxError) {
        try self.init(
            identifier: identifier, container: container, configuration: configuration, httpClient: shared.client,
            logger: logger)
    }
}
