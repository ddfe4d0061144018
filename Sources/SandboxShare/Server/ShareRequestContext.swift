import Hummingbird
import NIOCore

/// What the server knows of a request beyond the request itself: the client's address, for the
/// failure throttle and the log.
struct ShareRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address, or `unknown`.
    let client: String

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
