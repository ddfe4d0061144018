import Glibc
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers a GET or HEAD of a small plain file itself, on the connection's event loop, and passes
/// every other request to Hummingbird unchanged (``ReadyResponder/immediateResponse(to:context:)``
/// decides, with the share's own checks: nothing here is a policy).
///
/// Hummingbird answers a request on the connection's task: the request crosses from the event loop
/// to the task and the response back, two thread switches and the machinery of its request and
/// response on each side, most of the work a small GET costs. Here the same answer is written at
/// once, straight into the pipeline.
///
/// It sits after Hummingbird's `HTTPConnectionStateHandler`, which so sees every request and
/// response (its idle timeout and graceful shutdown count them), and after the ``ConnectionGuard``.
/// Responses go out in the order of the requests: while a request handed to Hummingbird has not
/// been answered (a pipelined client), every later one is handed on too.
final class ImmediateReadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether connections answer small reads at once; `SANDBOX_SHARE_IMMEDIATE=off` hands every
    /// request to Hummingbird (tests compare the two answers).
    package static let isEnabled: Bool = getenv("SANDBOX_SHARE_IMMEDIATE").map { String(cString: $0) } != "off"

    private let responder: ReadyResponder
    private let requestContext: ShareRequestContext
    private let isSecure: Bool
    /// A GET or HEAD head, held until its end arrives (a body sends it on to Hummingbird).
    private var held: HTTPRequest?
    /// Requests handed to Hummingbird whose responses have not ended.
    private var handedOn = 0
    /// Whether responses were written since the last flush.
    private var unflushed = false
    /// Whether a request asked to close the connection after its response (`Connection: close`):
    /// later requests are not read.
    private var isClosing = false

    init(responder: ReadyResponder, context: ShareRequestContext, isSecure: Bool) {
        self.responder = responder
        requestContext = context
        self.isSecure = isSecure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isClosing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            if handedOn == 0, head.method == .get || head.method == .head {
                held = head
                return
            }
            handedOn += 1
            context.fireChannelRead(data)
        case .body:
            handOnHeld(context: context)
            context.fireChannelRead(data)
        case .end:
            guard let head = held else {
                context.fireChannelRead(data)
                return
            }
            held = nil
            var request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
            if isSecure { request = EventLoopHTTP1Channel.markedSecure(request) }
            guard let response = responder.immediateResponse(to: request, context: requestContext) else {
                handedOn += 1
                context.fireChannelRead(wrapInboundOut(.head(head)))
                context.fireChannelRead(data)
                return
            }
            context.write(wrapOutboundOut(.head(response.head)), promise: nil)
            if let body = response.body, body.readableBytes > 0 {
                context.write(wrapOutboundOut(.body(body)), promise: nil)
            }
            context.write(wrapOutboundOut(.end(nil)), promise: nil)
            unflushed = true
            // As Hummingbird does: no more requests, the output half-closed, the client closes.
            if head.headerFields[.connection] == "close" {
                isClosing = true
                unflushed = false
                context.flush()
                context.close(mode: .output, promise: nil)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), handedOn > 0 { handedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// Hands the held head, if any, to Hummingbird: its request has a body.
    private func handOnHeld(context: ChannelHandlerContext) {
        guard let head = held else { return }
        held = nil
        handedOn += 1
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
