/// The connections the server holds, as a state machine without I/O: which to admit, and which
/// to close to make room (``ConnectionRegistry`` closes them).
///
/// A connection is *evictable* while it has not logged in and has no request in flight: a new
/// connection may take its place. The oldest evictable one goes first, so that a client opening
/// connections as fast as it can closes its own rather than one that has just sent its request.
struct ConnectionTable {
    /// A connection, numbered in the order they opened.
    typealias ID = UInt64

    private struct Entry {
        let client: String
        var isAuthenticated = false
        var requestsInFlight = 0

        var isEvictable: Bool { !isAuthenticated && requestsInFlight == 0 }
    }

    /// What ``open(client:)`` decided.
    enum Admission: Equatable {
        /// Admitted as `id`, once the connections `evicting` are closed.
        case admitted(ID, evicting: [ID])
        /// No room: every connection that could make room has logged in or is answering.
        case refused
    }

    let limits: ConnectionLimits
    private var entries: [ID: Entry] = [:]
    private var unauthenticated: [String: Int] = [:]
    private var nextID: ID = 0
    /// Every connection, oldest first, and each client's that have not logged in: the oldest
    /// evictable one is found near the front without looking at every connection (each new
    /// connection of a client at its limit looks for one).
    private var order = OpeningOrder()
    private var orderByClient: [String: OpeningOrder] = [:]

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// How many connections are held.
    var count: Int { entries.count }

    /// How many connections from `client` have not logged in.
    func unauthenticatedCount(from client: String) -> Int { unauthenticated[client] ?? 0 }

    /// Admits a connection from `client`, closing the oldest evictable one of the same client
    /// when it holds its limit of connections that have not logged in, and the oldest evictable
    /// ones of any client while the server holds its total — or `capacity`, when that is lower
    /// (what the descriptors allow now, ``ConnectionLimits/capacity(descriptorLimit:heldBesides:)``).
    mutating func open(client: String, capacity: Int? = nil) -> Admission {
        let total = max(1, min(limits.total, capacity ?? limits.total))
        var evicting: [ID] = []
        if unauthenticatedCount(from: client) >= min(limits.unauthenticatedPerClient, total) {
            guard let oldest = oldestEvictable(from: client) else { return .refused }
            evicting.append(oldest)
        }
        // More than one when the capacity was lowered below what is held.
        while entries.count - evicting.count >= total {
            guard let oldest = oldestEvictable(excluding: evicting) else { return .refused }
            evicting.append(oldest)
        }
        for id in evicting { remove(id) }
        let id = nextID
        nextID += 1
        entries[id] = Entry(client: client)
        unauthenticated[client, default: 0] += 1
        order.append(id)
        orderByClient[client, default: OpeningOrder()].append(id)
        return .admitted(id, evicting: evicting)
    }

    /// The connection `id` sent valid credentials: it is never evicted.
    mutating func authenticate(_ id: ID) {
        guard let entry = entries[id], !entry.isAuthenticated else { return }
        entries[id]?.isAuthenticated = true
        decrementUnauthenticated(entry.client)
    }

    /// A request head arrived on `id`.
    mutating func requestStarted(_ id: ID) {
        entries[id]?.requestsInFlight += 1
    }

    /// The response to a request of `id` was written to its end.
    mutating func requestFinished(_ id: ID) {
        guard let entry = entries[id], entry.requestsInFlight > 0 else { return }
        entries[id]?.requestsInFlight -= 1
    }

    /// Forgets `id` (closed); `false` when it was not held (evicted already).
    @discardableResult
    mutating func remove(_ id: ID) -> Bool {
        guard let entry = entries.removeValue(forKey: id) else { return false }
        if !entry.isAuthenticated { decrementUnauthenticated(entry.client) }
        return true
    }

    /// Removes and returns the `count` oldest evictable connections (to free descriptors).
    mutating func evictOldest(_ count: Int) -> [ID] {
        var evicted: [ID] = []
        while evicted.count < count, let oldest = oldestEvictable(excluding: []) {
            remove(oldest)
            evicted.append(oldest)
        }
        return evicted
    }

    private mutating func oldestEvictable(from client: String) -> ID? {
        let entries = self.entries
        return orderByClient[client]?.first(
            forgetting: { entries[$0] == nil }, where: { entries[$0]?.isEvictable == true })
    }

    private mutating func oldestEvictable(excluding excluded: [ID]) -> ID? {
        let entries = self.entries
        return order.first(
            forgetting: { entries[$0] == nil }, where: { entries[$0]?.isEvictable == true && !excluded.contains($0) })
    }

    private mutating func decrementUnauthenticated(_ client: String) {
        let remaining = (unauthenticated[client] ?? 1) - 1
        unauthenticated[client] = remaining > 0 ? remaining : nil
        if remaining <= 0 { orderByClient[client] = nil }  // what it held has closed or logged in
    }
}

/// Connection numbers in the order they opened, oldest first, from which closed ones are
/// forgotten as they reach the front.
private struct OpeningOrder {
    private var ids: [ConnectionTable.ID] = []
    private var start = 0

    mutating func append(_ id: ConnectionTable.ID) { ids.append(id) }

    /// The oldest number that `matches`, after forgetting the front ones that are `gone`.
    mutating func first(
        forgetting gone: (ConnectionTable.ID) -> Bool, where matches: (ConnectionTable.ID) -> Bool
    ) -> ConnectionTable.ID? {
        while start < ids.count, gone(ids[start]) { start += 1 }
        if start > 64, start > ids.count / 2 {
            ids.removeFirst(start)
            start = 0
        }
        return ids[start...].first(where: matches)
    }
}
