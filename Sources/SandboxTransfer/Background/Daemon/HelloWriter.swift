import NIOCore

/// Writes the hello the moment the connection to `sandboxd` is up, from the channel's event loop.
///
/// The daemon closes a connection whose hello has not arrived within its deadline (5 s, a defence
/// against clients that hold a slot and say nothing). Written from a task, the hello would wait
/// for a thread of Swift's cooperative pool, and a pool starved past the deadline (a loaded
/// machine, a process whose threads all block) lost the connection. Here nothing between the
/// connect and the hello needs the pool. A write that fails reaches the connection's reader as
/// its error. The handler stays in the pipeline (passing what it reads on) so that it can.
final class HelloWriter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let frame: ByteBuffer
    private var written = false

    /// A writer of `frame`, the hello already framed.
    init(frame: ByteBuffer) {
        self.frame = frame
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { write(context: context) }  // a socket registered already connected
    }

    func channelActive(context: ChannelHandlerContext) {
        write(context: context)
        context.fireChannelActive()
    }

    private func write(context: ChannelHandlerContext) {
        guard !written else { return }
        written = true
        context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenFailure { error in
            context.fireErrorCaught(error)
        }
    }
}
