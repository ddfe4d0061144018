import NIOCore
import SandboxCore
import Synchronization

/// How many connections the process's descriptors allow at each new one: the limits'
/// ``ConnectionLimits/capacity(descriptorLimit:heldBesides:)`` for the soft limit in force then
/// (it can be lowered while the server runs: `prlimit`) and the descriptors the server holds
/// besides its connections, counted once it listens.
///
/// The server never reaches its limit this way: a flood of connections is met by closing the
/// oldest that have not logged in, not by failing `accept` — at the limit, libdispatch kills the
/// process (``/SandboxCore/ProcessDescriptors``).
///
/// Connections closed to make room close a moment later, on their event loop (measured: up to 19
/// descriptors behind on a quiet machine), so the budget also counts each accepted connection's
/// descriptor until it is closed (``accepted(_:)``): accepting waits while they reach the
/// capacity and ``slack`` (``isSpent``).
final class DescriptorBudget: Sendable {
    let limits: ConnectionLimits
    private let heldBesides: Atomic<Int>
    private let open = Atomic(0)

    /// Descriptors of connections beyond the capacity: a new connection is accepted, then one
    /// is closed to make room for it.
    static let slack = 8

    /// The limit assumed when it cannot be read: Linux's usual soft limit.
    static let usualLimit = 1024
    /// Descriptors the listener and the event loops add to what is open when the server is made.
    static let listenerAllowance = 16

    /// A budget for a server about to listen: what the process holds now, with the listener's
    /// allowance, until ``measure(connections:)``.
    init(limits: ConnectionLimits, heldBesides: Int? = nil) {
        self.limits = limits
        let held = heldBesides ?? ((ProcessDescriptors.openCount() ?? 0) + Self.listenerAllowance)
        self.heldBesides = Atomic(held)
    }

    /// Counts what the server holds besides its `connections`, once it listens.
    func measure(connections: Int) {
        guard let open = ProcessDescriptors.openCount() else { return }  // unknown: the estimate stays
        heldBesides.store(max(0, open - connections), ordering: .relaxed)
    }

    /// Counts `channel`'s descriptor until it is closed.
    func accepted(_ channel: any Channel) {
        open.add(1, ordering: .relaxed)
        channel.closeFuture.whenComplete { [self] _ in open.subtract(1, ordering: .relaxed) }
    }

    /// How many accepted connections' descriptors are open.
    var openConnections: Int { open.load(ordering: .relaxed) }

    /// Whether accepting must wait: the accepted connections' descriptors, those being closed
    /// included, reach the capacity and the slack.
    var isSpent: Bool { openConnections >= capacity() + Self.slack }

    /// The connections that may be held now.
    func capacity() -> Int {
        limits.capacity(
            descriptorLimit: ProcessDescriptors.softLimit() ?? Self.usualLimit,
            heldBesides: heldBesides.load(ordering: .relaxed))
    }
}
