import NIOCore

/// What the server knows of a request beyond the request itself: the client's address, for the
/// failure throttle and the log, and the connection's event loop. The same for every request of
/// a connection, so made once per connection.
struct ShareRequestContext: Sendable {
    /// The client's IP address, or `unknown`.
    let client: String
    /// The event loop of the request's connection, where its response is written.
    let eventLoop: any EventLoop

    init(client: String, eventLoop: any EventLoop) {
        self.client = client
        self.eventLoop = eventLoop
    }

    /// The context of the requests that come on `channel`.
    init(channel: any Channel) {
        self.init(client: channel.remoteAddress?.ipAddress ?? "unknown", eventLoop: channel.eventLoop)
    }
}
