import SandboxTransfer

/// What `sandboxd` gives its clients: how many connections, how long to say hello, and how many
/// bytes it holds for them, received and queued. A client past a limit is dropped with a logged
/// reason; the others do not notice.
///
/// The bytes are counted per connection and in a budget the connections share: each connection
/// may hold its *allowance* whatever the others do (a hello, a request, a few answers); beyond it
/// a connection draws on the shared budget, up to its own maximum. When the budget is spent, the
/// connection that holds most of it is dropped (a client that sends half frames or never reads
/// holds the most), so the daemon's memory for clients stays below
/// `maximumConnections × (receiveAllowance + outboxAllowance) + receiveBudget + outboxBudget`.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once; past it new ones are closed at once.
    public var maximumConnections: Int
    /// Connections open at once from one process (`SO_PEERCRED`'s pid), so one client cannot take
    /// every connection.
    public var maximumConnectionsPerProcess: Int
    /// How long a new connection has to be admitted (its hello read and accepted).
    public var helloTimeout: Duration
    /// The largest frame before the connection is admitted: a hello is a few hundred bytes.
    public var helloFrameMaximum: Int
    /// Bytes of frames being received that every connection may hold.
    public var receiveAllowance: Int { helloFrameMaximum + 4 }
    /// Bytes of frames being received, beyond the allowances, that all connections may hold.
    public var receiveBudget: Int
    /// Encoded answers and events waiting for a client that every connection may hold.
    public var outboxAllowance: Int
    /// Encoded answers and events waiting for one client: past it the connection is closed (its
    /// queued events stay in the daemon's queue for its next attach; only progress is lost).
    public var outboxMaximum: Int
    /// Encoded answers and events, beyond the allowances, waiting for all clients.
    public var outboxBudget: Int
    /// Requests, from all connections together, taken before the work they asked for is done
    /// (`RequestWindow`).
    public var requestWindow: Int

    /// The limits of a daemon that serves one user's apps: 128 connections, 64 a process, 5 s for
    /// the hello, an 8 KiB hello (a home path of `PATH_MAX` fits), 1 MiB of frames in flight
    /// beyond 8 KiB a connection (a frame's buffer may take up to twice its bytes), 2 MiB of
    /// answers queued beyond 8 KiB a connection and at most 2 MiB for one client (a largest
    /// answer, 1 MiB, and what follows it), 32 requests in the works.
    ///
    /// An open connection costs the daemon ~20 KiB before it holds a byte (its channel, task and
    /// streams), so the connection cap and the budgets together keep a flood of hostile clients
    /// under ~15 MiB (measured in BENCHMARKS.md); an app needs one connection per background
    /// session.
    public static let standard = ConnectionLimits(
        maximumConnections: 128, maximumConnectionsPerProcess: 64, helloTimeout: .seconds(5),
        helloFrameMaximum: 8 << 10, receiveBudget: 1 << 20, outboxAllowance: 8 << 10, outboxMaximum: 2 << 20,
        outboxBudget: 2 << 20, requestWindow: 32)

    /// The bytes one connection may hold of frames being received: one whole frame (the frame
    /// decoder refuses a longer one as soon as its length arrives).
    var receiveMaximum: Int { BackgroundProtocol.maximumFrameSize + 4 }

    var receivePool: BytePool.Limits {
        BytePool.Limits(allowance: receiveAllowance, maximum: receiveMaximum, budget: receiveBudget)
    }

    var outboxPool: BytePool.Limits {
        BytePool.Limits(allowance: outboxAllowance, maximum: outboxMaximum, budget: outboxBudget)
    }
}
