import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Watches one connection for the ``ConnectionRegistry``: when a request starts and ends, and
/// whether the client has logged in (the share's credentials with HTTP Basic); closes the
/// connection when it has not logged in and sends no complete request head within the limits'
/// ``ConnectionLimits/unauthenticatedTimeout`` — after it opens (a slowloris client that sends
/// its head a byte at a time gains nothing) and between its requests.
///
/// A connection the registry refused (`id` nil) is closed as soon as it is active.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let registry: ConnectionRegistry
    private let id: ConnectionTable.ID?
    private let credentials: ShareCredentials
    private let timeout: TimeAmount
    private var isAuthenticated = false
    private var requestsInFlight = 0
    private var deadline: Scheduled<Void>?

    init(registry: ConnectionRegistry, id: ConnectionTable.ID?, credentials: ShareCredentials) {
        self.registry = registry
        self.id = id
        self.credentials = credentials
        timeout = TimeAmount(registry.limits.unauthenticatedTimeout)
    }

    func channelActive(context: ChannelHandlerContext) {
        guard id != nil else {
            context.close(promise: nil)
            return
        }
        armDeadline(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if let id { registry.closed(id) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), let id {
            deadline?.cancel()
            deadline = nil
            requestsInFlight += 1
            registry.requestStarted(id)
            if !isAuthenticated, carriesCredentials(head) {
                isAuthenticated = true
                registry.authenticate(id)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), let id, requestsInFlight > 0 {
            requestsInFlight -= 1
            registry.requestFinished(id)
            if requestsInFlight == 0 { armDeadline(context: context) }
        }
        context.write(data, promise: promise)
    }

    /// Whether `head` carries the share's credentials with HTTP Basic.
    private func carriesCredentials(_ head: HTTPRequest) -> Bool {
        guard let given = BasicAuthorization(header: head.headerFields.fieldValue(.authorization)) else { return false }
        return credentials.match(user: given.user, password: given.password)
    }

    /// Closes the connection after the timeout unless a request head arrives first; nothing for
    /// a connection that has logged in (Hummingbird's idle timeout applies to it).
    private func armDeadline(context: ChannelHandlerContext) {
        guard !isAuthenticated else { return }
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }
}
