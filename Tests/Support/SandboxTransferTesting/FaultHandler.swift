import NIOCore
import NIOHTTP1
import Synchronization

/// Answers each request with the server's plan: the head, then the body in chunks, paced, dropped
/// or stalled as the resource says.
final class FaultHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: ServerBox
    private var head: HTTPRequestHead?

    init(server: ServerBox) {
        self.box = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
        case .body:
            break
        case .end:
            guard let request = head, let server = box.server.withLock({ $0 }) else { return }
            head = nil
            let path = String(request.uri.split(separator: "?", maxSplits: 1).first ?? "")
            let (plan, index) = server.answer(path: path, headers: request.headers)
            var responseHead = plan.head
            if !request.isKeepAlive { responseHead.headers.replaceOrAdd(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            send(plan, from: 0, index: index, server: server, context: context, keepAlive: request.isKeepAlive)
        }
    }

    private func send(
        _ plan: ResponsePlan, from offset: Int, index: Int, server: FaultServer, context: ChannelHandlerContext,
        keepAlive: Bool
    ) {
        var limit = plan.body.count
        if let drop = plan.dropAfter { limit = min(limit, drop) }
        if let stall = plan.stallAfter { limit = min(limit, stall) }
        guard context.channel.isActive else { return }  // the client went away: stop sending
        let end = min(limit, offset + plan.chunkSize)
        if end > offset {
            let slice = plan.body[(plan.body.startIndex + offset)..<(plan.body.startIndex + end)]
            let count = end - offset
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: slice)))))
                .assumeIsolated().whenSuccess { server.recordSent(count, at: index) }
        }
        if end < limit {
            let next = { [self] in
                self.send(plan, from: end, index: index, server: server, context: context, keepAlive: keepAlive)
            }
            if plan.chunkDelayMilliseconds > 0 {
                context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(plan.chunkDelayMilliseconds))) {
                    next()
                }
            } else {
                context.eventLoop.assumeIsolated().execute { next() }
            }
            return
        }
        if let drop = plan.dropAfter, limit == drop, drop < plan.body.count {
            context.close(promise: nil)
            return
        }
        if let stall = plan.stallAfter, limit == stall {
            return  // stalled: send nothing more (not even the end of a chunked body), keep the connection open
        }
        let closing = !keepAlive
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if closing { context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
