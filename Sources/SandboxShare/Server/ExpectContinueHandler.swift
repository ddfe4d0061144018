import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` — Hummingbird never does, and a client that
/// sends the header (curl for large uploads, litmus, .NET) waits for it before sending the body.
///
/// The interim answer goes out only when the request carries the share's credentials and its
/// address is not throttled (``PairingGate/invitesBody(authorization:client:now:)``): a client
/// without them is not invited to send a body it will be refused; it gets the final 401 or 429 at
/// once and the connection is closed rather than drained. While an address is throttled every
/// request gets that same answer, so the interim one cannot tell a right guess from a wrong one.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let gate: PairingGate

    init(gate: PairingGate) {
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data),
            head.headerFields.fieldValue(.expect)?.lowercased() == "100-continue"
        else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[.expect] = nil
        let client = ShareRequestContext(channel: context.channel).client
        if gate.invitesBody(authorization: head.headerFields.fieldValue(.authorization), client: client, now: .now) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        } else {
            head.headerFields[.connection] = "close"
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
