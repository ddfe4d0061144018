import Testing

@testable import SandboxShare

/// The connection table's decisions, without sockets.
@Suite struct ConnectionTableTests {
    static let limits = ConnectionLimits(total: 4, unauthenticatedPerClient: 2)

    @Test func aClientAtItsLimitClosesItsOwnOldestIdleConnection() {
        var table = ConnectionTable(limits: Self.limits)
        #expect(table.open(client: "a") == .admitted(0, evicting: []))
        #expect(table.open(client: "a") == .admitted(1, evicting: []))
        #expect(table.open(client: "b") == .admitted(2, evicting: []))
        #expect(table.open(client: "a") == .admitted(3, evicting: [0]))
        #expect(table.unauthenticatedCount(from: "a") == 2)
        #expect(table.count == 3)
    }

    @Test func aConnectionAnsweringARequestIsNotClosedToMakeRoom() {
        var table = ConnectionTable(limits: Self.limits)
        _ = table.open(client: "a")
        _ = table.open(client: "a")
        table.requestStarted(0)
        #expect(table.open(client: "a") == .admitted(2, evicting: [1]))
        table.requestStarted(2)
        #expect(table.open(client: "a") == .refused)
        table.requestFinished(0)
        #expect(table.open(client: "a") == .admitted(3, evicting: [0]))
    }

    @Test func loggedInConnectionsAreNeitherCountedPerClientNorEvicted() {
        var table = ConnectionTable(limits: Self.limits)
        for id: ConnectionTable.ID in 0..<3 {
            _ = table.open(client: "owner")
            table.authenticate(id)
        }
        #expect(table.unauthenticatedCount(from: "owner") == 0)
        #expect(table.open(client: "x") == .admitted(3, evicting: []))
        // The total is reached: only the connection that has not logged in can make room.
        #expect(table.open(client: "y") == .admitted(4, evicting: [3]))
        table.authenticate(4)
        #expect(table.open(client: "z") == .refused)
        #expect(table.evictOldest(8).isEmpty)
    }

    @Test func evictingForDescriptorsTakesTheOldestIdleOnesAndForgetsThem() {
        var table = ConnectionTable(limits: ConnectionLimits(total: 10, unauthenticatedPerClient: 10))
        for _ in 0..<5 { _ = table.open(client: "a") }
        table.requestStarted(1)
        table.authenticate(2)
        #expect(table.evictOldest(2) == [0, 3])
        let removedAgain = table.remove(0)
        let removed = table.remove(1)
        #expect(!removedAgain && removed)
        #expect(table.count == 2)
        #expect(table.unauthenticatedCount(from: "a") == 1)
    }

    @Test func theCapacityLeavesTheReserveBelowTheDescriptorLimit() {
        let limits = ConnectionLimits()
        #expect(limits.capacity(descriptorLimit: 1024, heldBesides: 0) == 1024 - 256)
        #expect(limits.capacity(descriptorLimit: 1024, heldBesides: 24) == 1024 - 24 - 256)
        #expect(limits.capacity(descriptorLimit: 100, heldBesides: 0) == 50)
        #expect(limits.capacity(descriptorLimit: 100, heldBesides: 60) == 20)
        #expect(limits.capacity(descriptorLimit: 1_048_576, heldBesides: 30) == 1000)
        #expect(limits.capacity(descriptorLimit: Int.max, heldBesides: 30) == 1000)
        #expect(limits.capacity(descriptorLimit: 1, heldBesides: 0) == 1)
        #expect(limits.capacity(descriptorLimit: 50, heldBesides: 80) == 1)
        #expect(limits.capacity(descriptorLimit: 100, heldBesides: -5) == 50)
    }

    /// A capacity lowered below what is held (the descriptor limit lowered while the server
    /// runs) closes as many evictable connections as it takes, the oldest first, and the limit
    /// of one client's connections follows it.
    @Test func aLoweredCapacityEvictsDownToIt() {
        var table = ConnectionTable(limits: ConnectionLimits(total: 10, unauthenticatedPerClient: 10))
        for _ in 0..<6 { _ = table.open(client: "a") }
        table.authenticate(1)
        #expect(table.open(client: "b", capacity: 3) == .admitted(6, evicting: [0, 2, 3, 4]))
        #expect(table.count == 3)
        #expect(table.open(client: "a", capacity: 2) == .admitted(7, evicting: [5, 6]))
        #expect(table.open(client: "c", capacity: 1) == .refused)  // only the logged-in one and the new one are left
        #expect(table.count == 2)
        #expect(table.open(client: "a", capacity: 0) == .refused)  // one place at least: the logged-in one's
    }
}
