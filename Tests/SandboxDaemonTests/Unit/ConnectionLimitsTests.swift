import Logging
import Synchronization
import Testing

@testable import SandboxDaemon

/// The daemon's limits without I/O: the byte pools, the connection caps and the log's rate.
@Suite struct ConnectionLimitsTests {
    private let limits = BytePool.Limits(allowance: 10, maximum: 100, budget: 50)

    @Test func allowancesAreFreeWhateverTheOthersHold() {
        var pool = BytePool(limits)
        #expect(pool.resize(1, to: 60) == .granted(evicted: []))  // 50 of the budget
        #expect(pool.budgetInUse == 50)
        for connection in 2...20 { #expect(pool.resize(connection, to: 10) == .granted(evicted: [])) }
        #expect(pool.budgetInUse == 50)
    }

    @Test func oneConnectionNeverHoldsMoreThanItsMaximum() {
        var pool = BytePool(BytePool.Limits(allowance: 10, maximum: 100, budget: 1_000))
        #expect(pool.add(100, to: 1) == .granted(evicted: []))
        #expect(pool.add(1, to: 1) == .overMaximum(holding: 101))
        #expect(pool.holding(1) == 100)
    }

    @Test func theLargestHolderIsEvictedWhenTheBudgetIsSpent() {
        var pool = BytePool(BytePool.Limits(allowance: 10, maximum: 100, budget: 60))
        #expect(pool.resize(1, to: 40) == .granted(evicted: []))  // 30 of the budget
        #expect(pool.resize(2, to: 30) == .granted(evicted: []))  // 20
        // 3 asks for 25 beyond its allowance: 1, the largest, goes.
        #expect(pool.resize(3, to: 35) == .granted(evicted: [1]))
        #expect(pool.holding(1) == 0)
        #expect(pool.budgetInUse == 45)
        // The one asking holds the most: it is refused and keeps what it had.
        #expect(pool.resize(2, to: 70) == .overBudget(holding: 70))
        #expect(pool.holding(2) == 30)
        #expect(pool.budgetInUse == 45)
    }

    @Test func removingNeverGoesBelowZeroAndFreesTheBudget() {
        var pool = BytePool(limits)
        #expect(pool.add(40, to: 1) == .granted(evicted: []))
        pool.remove(100, from: 1)
        #expect(pool.holding(1) == 0 && pool.budgetInUse == 0)
        pool.remove(5, from: 7)  // never counted (evicted, or gone)
        #expect(pool.budgetInUse == 0)
    }

    @Test func theLogWritesABurstThenSaysHowManyItLeftOut() {
        var log = RateLimitedLog(burst: 2, period: .seconds(10))
        let start = ContinuousClock.now
        #expect(log.admit("a", at: start) == "a")
        #expect(log.admit("b", at: start) == "b")
        #expect(log.admit("c", at: start + .seconds(1)) == nil)
        #expect(log.admit("d", at: start + .seconds(2)) == nil)
        #expect(log.admit("e", at: start + .seconds(11)) == "e (2 similar messages left out)")
        #expect(log.admit("f", at: start + .seconds(11)) == "f")
    }

    @Test func theGateCountsConnectionsInAllAndPerProcess() {
        var limits = ConnectionLimits.standard
        limits.maximumConnections = 3
        limits.maximumConnectionsPerProcess = 2
        let gate = ConnectionGate(limits: limits, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let first = PeerCredentials(pid: 10, uid: 0, gid: 0)
        let second = PeerCredentials(pid: 11, uid: 0, gid: 0)
        let a = gate.enter(first) {}
        #expect(a != nil)
        #expect(gate.enter(first) {} != nil)
        #expect(gate.enter(first) {} == nil)  // the process's third
        let c = gate.enter(second) {}
        #expect(c != nil)
        #expect(gate.enter(PeerCredentials(pid: 12, uid: 0, gid: 0)) {} == nil)  // the daemon's fourth
        a?.leave()
        #expect(gate.openCount == 2)
        #expect(gate.enter(first) {} != nil)
    }

    @Test func aConnectionPastItsQueueIsClosedAndCountsNothingMore() {
        var limits = ConnectionLimits.standard
        limits.outboxAllowance = 100
        limits.outboxMaximum = 1_000
        let gate = ConnectionGate(limits: limits, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let closed = Counter()
        let slot = gate.enter(PeerCredentials(pid: 10, uid: 0, gid: 0)) { closed.increment() }
        #expect(slot?.queue(900) == true)
        slot?.written(400)
        #expect(slot?.queue(400) == true)  // 900 held
        #expect(slot?.queue(200) == false)  // 1,100: past the maximum
        #expect(closed.value == 1)
        #expect(slot?.queue(1) == false)  // dropped: nothing more is queued
        #expect(closed.value == 1)
    }
}

/// A count a closure can bump from any thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// The request window without the daemon: a barrier that counts how often it ran.
@Suite struct RequestWindowTests {
    @Test func pastItsSizeRequestsWaitForABarrier() async {
        let barriers = Counter()
        let window = RequestWindow(size: 4) { barriers.increment() }
        for _ in 0..<4 { await window.enter() }
        #expect(barriers.value == 0)
        for _ in 0..<9 { await window.enter() }  // 4 after the first barrier, 4 after the second, 1
        #expect(barriers.value == 3)
    }

    @Test func concurrentRequestsAllGetThrough() async {
        let barriers = Counter()
        let window = RequestWindow(size: 8) { barriers.increment() }
        await withDiscardingTaskGroup { group in
            for _ in 0..<200 { group.addTask { await window.enter() } }
        }
        #expect(barriers.value >= 200 / 8 - 1)
    }
}
