import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 channel, with each connection's task preferring the connection's event
/// loop (``EventLoopTaskExecutor``) to Swift's global pool, and each request handed straight to
/// the share's responder (``ReadyResponder``).
///
/// Hummingbird runs one task per connection, which reads requests from the channel and writes the
/// responses back; on the global pool every request costs a thread hand-off each way. With the
/// preference, the task runs where the channel's reads arrive and its writes go.
///
/// What a connection's requests share is worked out once, when it opens: the client's address and
/// the event loop (``ShareRequestContext``). Hummingbird's `Application` would, per request, copy
/// its logger with a request ID, bind it to a task-local, and make a router context the share
/// never uses.
struct EventLoopHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let configuration: HTTP1Channel.Configuration
    let responder: ReadyResponder

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        HTTP1Channel(responder: { _, _, _ in }, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        let context = ShareRequestContext(channel: value.channel)
        let responder = self.responder
        let connection = HTTP1Channel(
            responder: { request, writer, _ in
                try await responder.respond(to: request, writer: writer, context: context)
            },
            configuration: configuration)
        await withTaskExecutorPreference(EventLoopTaskExecutor(context.eventLoop)) {
            await connection.handle(value: value, logger: logger)
        }
    }
}
