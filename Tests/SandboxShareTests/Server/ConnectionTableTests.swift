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

    @Test func theTotalIsFittedToTheDescriptorLimit() {
        let limits = ConnectionLimits()
        #expect(limits.fitted(toDescriptorLimit: 1024).total == 1024 - 256)
        #expect(limits.fitted(toDescriptorLimit: 100).total == 50)
        #expect(limits.fitted(toDescriptorLimit: 100).unauthenticatedPerClient == 50)
        #expect(limits.fitted(toDescriptorLimit: 1_048_576).total == 1000)
        #expect(limits.fitted(toDescriptorLimit: 1).total == 1)
    }
}
