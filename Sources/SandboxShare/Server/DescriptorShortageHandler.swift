import Glibc
import NIOCore

/// Stops the listener from spinning when the process runs out of descriptors (`EMFILE`,
/// `ENFILE`): it pauses accepting for ``pause``, closes the oldest connections that have not
/// logged in (``ConnectionRegistry/evictOldest(_:)``) so that the next accept can succeed, then
/// accepts again.
///
/// SwiftNIO's own `AcceptBackoffHandler` cannot stop the spin: after a failed `accept` the
/// listener stays registered for reading, so the event loop calls `accept` again at once,
/// without asking the pipeline (measured: 78,000 failing `accept4` calls in 4 s, a core busy,
/// and no request answered). Turning `autoRead` off takes the listener out of the poll set.
/// Added first in the listener's pipeline, so it sees the error before anything else.
///
/// It also keeps the process from getting there (``DescriptorBudget``): each accepted connection
/// is counted until its descriptor is closed, and while they reach the budget the listener's
/// reads wait, checked again every ``recheck``, for the connections closed to make room to go.
final class DescriptorShortageHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel
    typealias OutboundIn = Never

    /// How long accepting pauses.
    static let pause = TimeAmount.milliseconds(100)
    /// How many idle connections that have not logged in are closed at each shortage.
    static let evictedPerShortage = 16
    /// How often a read held for the budget checks it again.
    static let recheck = TimeAmount.milliseconds(5)

    private let registry: ConnectionRegistry
    private var resume: Scheduled<Void>?
    private var heldRead: Scheduled<Void>?

    init(registry: ConnectionRegistry) {
        self.registry = registry
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let error = error as? IOError, error.errnoCode == EMFILE || error.errnoCode == ENFILE else {
            context.fireErrorCaught(error)
            return
        }
        registry.evictOldest(Self.evictedPerShortage)
        guard resume == nil, let options = context.channel.syncOptions else { return }
        do {
            try options.setOption(.autoRead, value: false)
        } catch {
            context.fireErrorCaught(error)  // the listener is closing: nothing to pause
            return
        }
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: Self.pause) { [self] in
            resume = nil
            // The listener closed meanwhile: nothing to resume.
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        registry.budget.accepted(unwrapInboundIn(data))
        context.fireChannelRead(data)
    }

    /// Reads asked for while paused wait for the pause to end; while the budget is spent, for
    /// it to have room.
    func read(context: ChannelHandlerContext) {
        guard resume == nil, heldRead == nil else { return }
        guard registry.budget.isSpent else {
            context.read()
            return
        }
        heldRead = context.eventLoop.assumeIsolated().scheduleTask(in: Self.recheck) { [self] in
            heldRead = nil
            read(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        heldRead?.cancel()
        heldRead = nil
        context.fireChannelInactive()
    }
}
