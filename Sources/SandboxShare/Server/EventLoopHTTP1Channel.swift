import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 channel, with each connection's task preferring the connection's event
/// loop (``EventLoopTaskExecutor``) to Swift's global pool.
///
/// Hummingbird runs one task per connection, which reads requests from the channel and writes the
/// responses back; on the global pool every request costs a thread hand-off each way. With the
/// preference, the task runs where the channel's reads arrive and its writes go.
struct EventLoopHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}
