import Hummingbird
import NIOCore

/// What the server knows of a request beyond the request itself: the client's address, for the
/// failure throttle and the log, and the connection's event loop.
struct ShareRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address, or `unknown`.
    let client: String
    /// The event loop of the request's connection, where its response is written.
    let eventLoop: any EventLoop

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
        eventLoop = source.channel.eventLoop
    }
}
