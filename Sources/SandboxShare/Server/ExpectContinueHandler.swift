import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` — Hummingbird never does, and a client that
/// sends the header (curl for large uploads, litmus, .NET) waits for it before sending the body.
///
/// The interim answer goes out only when the request carries the share's credentials: a client
/// without them is not invited to send a body it will be refused; it gets the final 401 at once
/// and the connection is closed rather than drained.
final class ExpectContinueHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let credentials: ShareCredentials

    init(credentials: ShareCredentials) {
        self.credentials = credentials
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data),
            head.headerFields.fieldValue(.expect)?.lowercased() == "100-continue"
        else {
            context.fireChannelRead(data)
            return
        }
        head.headerFields[.expect] = nil
        let authorization = BasicAuthorization(header: head.headerFields.fieldValue(.authorization))
        if let authorization, credentials.match(user: authorization.user, password: authorization.password) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        } else {
            head.headerFields[.connection] = "close"
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
