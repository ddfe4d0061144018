/// How many connections the share holds, and how long one that has not logged in may wait.
///
/// A client without the pairing code can still open connections: each costs the server a
/// descriptor and a task. Connections that have not logged in are therefore the first to go:
/// one that sends no complete request within ``unauthenticatedTimeout`` is closed, and when a
/// client address holds ``unauthenticatedPerClient`` of them, or the server ``total``, the
/// oldest idle one is closed to make room for the new one. A connection that sent the pairing
/// code (HTTP Basic) is never closed to make room.
public struct ConnectionLimits: Sendable, Equatable {
    /// The most connections served at once; lowered, at each new connection, to what the
    /// process's descriptor limit leaves after the descriptors the server holds besides and
    /// ``reservedDescriptors``: the server never reaches its limit.
    public var total: Int
    /// The most connections one client address may hold before they have logged in.
    public var unauthenticatedPerClient: Int
    /// How long a connection that has not logged in may go without a complete request head:
    /// after it opens, and between its requests.
    public var unauthenticatedTimeout: Duration
    /// Descriptors kept for the files the requests open (a listing, an upload, a download).
    public var reservedDescriptors: Int

    /// Limits; see each property for the defaults.
    public init(
        total: Int = 1000,
        unauthenticatedPerClient: Int = 128,
        unauthenticatedTimeout: Duration = .seconds(5),
        reservedDescriptors: Int = 256
    ) {
        self.total = total
        self.unauthenticatedPerClient = unauthenticatedPerClient
        self.unauthenticatedTimeout = unauthenticatedTimeout
        self.reservedDescriptors = reservedDescriptors
    }

    /// How many connections may be held by a process that may open `descriptorLimit`
    /// descriptors and holds `held` besides its connections: at most ``total``, leaving
    /// ``reservedDescriptors`` free (half of what is left when that is fewer), and at least one.
    func capacity(descriptorLimit: Int, heldBesides held: Int) -> Int {
        let available = max(0, descriptorLimit - max(0, held))
        let reserve = min(reservedDescriptors, available / 2)
        return max(1, min(total, available - reserve))
    }
}
