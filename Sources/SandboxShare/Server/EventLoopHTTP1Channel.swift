import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL

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
///
/// A GET or HEAD of a small plain file is answered before it reaches Hummingbird, on the event
/// loop (``ImmediateReadHandler``).
///
/// Each connection is admitted by the ``ConnectionRegistry`` as it opens, and watched by a
/// ``ConnectionGuard`` (first among the handlers after the HTTP codec) until it closes.
///
/// With a TLS context, each connection speaks TLS first (`NIOSSLServerHandler`, before the HTTP
/// codec) and its requests carry the `https` scheme, which the web page's origin check and
/// cookies go by. A handshake that stalls is closed as a silent connection is: by the
/// ``ConnectionGuard``'s deadline for one that has not logged in.
///
/// Without TLS, each connection's pipeline has a ``FileRegionAnchor`` and its task a
/// ``FileRegionSender``, which a download's body is sent with (`sendfile`).
struct EventLoopHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let configuration: HTTP1Channel.Configuration
    let responder: ReadyResponder
    let registry: ConnectionRegistry
    let credentials: ShareCredentials
    /// The TLS server context; `nil` for plain HTTP.
    let tls: NIOSSLContext?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let id = registry.open(channel, client: ShareRequestContext(channel: channel).client)
        if let tls {
            do {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        var configuration = self.configuration
        let handlers = configuration.additionalChannelHandlers
        configuration.additionalChannelHandlers = { [registry, credentials] in
            [ConnectionGuard(registry: registry, id: id, credentials: credentials)] + handlers()
        }
        let (responder, isSecure) = (self.responder, tls != nil)
        return HTTP1Channel(responder: { _, _, _ in }, configuration: configuration).setup(
            channel: channel, logger: logger
        ).flatMapThrowing { value in
            if !isSecure { try FileRegionAnchor.add(to: channel) }
            guard ImmediateReadHandler.isEnabled else { return value }
            let operations = channel.pipeline.syncOperations
            let state = try operations.handler(type: HTTPConnectionStateHandler.self)
            let immediate = ImmediateReadHandler(
                responder: responder, context: ShareRequestContext(channel: channel), isSecure: isSecure)
            try operations.addHandler(immediate, position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        let context = ShareRequestContext(channel: value.channel)
        let responder = self.responder
        let isSecure = tls != nil
        let connection = HTTP1Channel(
            responder: { request, writer, _ in
                // Hummingbird's codec marks every request `http`.
                let request = isSecure ? Self.markedSecure(request) : request
                try await responder.respond(to: request, writer: writer, context: context)
            },
            configuration: configuration)
        let sender = isSecure ? nil : FileRegionSender(channel: value.channel)
        await FileRegionSender.$current.withValue(sender) {
            await withTaskExecutorPreference(EventLoopTaskExecutor(context.eventLoop)) {
                await connection.handle(value: value, logger: logger)
            }
        }
    }

    /// `request` with the `https` scheme.
    static func markedSecure(_ request: Request) -> Request {
        var head = request.head
        head.scheme = "https"
        return Request(head: head, body: request.body)
    }
}
