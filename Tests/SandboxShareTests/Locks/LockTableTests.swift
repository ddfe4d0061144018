import Sandbox
import Synchronization
import Testing

@testable import SandboxShare

/// A request path, for tests (the paths here are all valid).
func sharePath(_ text: String) throws -> SharePath { try SharePath(requestPath: text) }

extension LockTable {
    /// A lock without owner, for tests.
    mutating func take(
        _ path: String, _ scope: LockScope = .exclusive, depth: Depth = .zero, timeout: Int? = 60, now: Duration
    ) throws -> ActiveLock {
        try lock(sharePath(path), scope: scope, depth: depth, owner: nil, timeoutSeconds: timeout, now: now)
    }
}

@Suite struct LockTableTests {
    let start = Duration.seconds(1_000)

    @Test func anExclusiveLockBlocksWritesWithoutItsToken() throws {
        var table = LockTable()
        let lock = try table.lock(
            sharePath("/a.txt"), scope: .exclusive, depth: .zero, owner: "<D:href>me</D:href>", timeoutSeconds: 3600,
            now: start)
        #expect(lock.token.hasPrefix("urn:uuid:"))
        #expect(lock.token.count == "urn:uuid:".count + 36)
        let error = #expect(throws: SandboxError.self) {
            try table.checkWrite(sharePath("/a.txt"), recursive: false, submitted: ["urn:uuid:other"], now: start)
        }
        #expect(error?.code == .locked)
        #expect(error?.condition == "lock-token-submitted")
        #expect(error?.lockRootHrefs == ["/a.txt"])
        try table.checkWrite(sharePath("/a.txt"), recursive: false, submitted: [lock.token], now: start)
        try table.checkWrite(sharePath("/b.txt"), recursive: false, submitted: [], now: start)
    }

    @Test func tokensAreUnique() throws {
        var table = LockTable()
        var tokens: Set<String> = []
        for index in 0..<100 {
            tokens.insert(
                try table.lock(
                    sharePath("/f\(index)"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: nil,
                    now: start
                ).token)
        }
        #expect(tokens.count == 100)
    }

    @Test func conflictsFollowScopeAndDepth() throws {
        var table = LockTable()
        _ = try table.lock(
            sharePath("/dir/"), scope: .exclusive, depth: .infinity, owner: nil, timeoutSeconds: 60, now: start)
        for (path, depth) in [("/dir/", Depth.zero), ("/dir/sub/file", .zero), ("/", .infinity)] {
            let error = #expect(throws: SandboxError.self) {
                try table.take(path, .shared, depth: depth, now: start)
            }
            #expect(error?.code == .locked)
            #expect(error?.condition == "no-conflicting-lock")
            #expect(error?.lockRootHrefs == ["/dir/"])
        }
        // A depth-0 lock on the parent does not reach into the collection.
        _ = try table.lock(sharePath("/"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 60, now: start)
        _ = try table.take("/other", now: start)
    }

    @Test func sharedLocksCoexistAndExcludeAnExclusiveOne() throws {
        var table = LockTable()
        let first = try table.lock(
            sharePath("/s"), scope: .shared, depth: .zero, owner: nil, timeoutSeconds: 60, now: start)
        let second = try table.lock(
            sharePath("/s"), scope: .shared, depth: .zero, owner: nil, timeoutSeconds: 60, now: start)
        #expect(first.token != second.token)
        #expect(throws: SandboxError.self) {
            try table.lock(sharePath("/s"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 60, now: start)
        }
        #expect(table.locks(covering: try sharePath("/s"), now: start).count == 2)
        #expect(throws: SandboxError.self) {
            try table.checkWrite(sharePath("/s"), recursive: false, submitted: [], now: start)
        }
        // Either holder may write: one shared token stands for the others on the same item.
        try table.checkWrite(sharePath("/s"), recursive: false, submitted: [first.token], now: start)
        try table.checkWrite(sharePath("/s"), recursive: false, submitted: [second.token], now: start)
        try table.unlock(token: second.token, path: sharePath("/s"), now: start)
        try table.checkWrite(sharePath("/s"), recursive: false, submitted: [first.token], now: start)
    }

    @Test func depthOneIsRefused() throws {
        var table = LockTable()
        let error = #expect(throws: SandboxError.self) {
            try table.lock(sharePath("/d/"), scope: .exclusive, depth: .one, owner: nil, timeoutSeconds: 1, now: start)
        }
        #expect(error?.code == .malformedRequest)
    }

    @Test func aRecursiveWriteNeedsTheTokensOfLocksBeneath() throws {
        var table = LockTable()
        let inner = try table.lock(
            sharePath("/d/e/f"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 60, now: start)
        try table.checkWrite(sharePath("/d"), recursive: false, submitted: [], now: start)
        let error = #expect(throws: SandboxError.self) {
            try table.checkWrite(sharePath("/d"), recursive: true, submitted: [], now: start)
        }
        #expect(error?.lockRootHrefs == ["/d/e/f"])
        try table.checkWrite(sharePath("/d"), recursive: true, submitted: [inner.token], now: start)
        #expect(table.locks(within: try sharePath("/d"), now: start) == [inner])
        #expect(table.locks(covering: try sharePath("/d"), now: start).isEmpty)
    }

    @Test func refreshAndUnlockNeedALockCoveringThePath() throws {
        var table = LockTable()
        let lock = try table.lock(
            sharePath("/coll/"), scope: .exclusive, depth: .infinity, owner: nil, timeoutSeconds: 10, now: start)
        // litmus indirect_refresh: the collection's lock refreshed through a member.
        let refreshed = try table.refresh(
            token: lock.token, path: sharePath("/coll/member.txt"), timeoutSeconds: 100, now: start + .seconds(5))
        #expect(refreshed.expiry == start + .seconds(105))
        #expect(refreshed.secondsLeft(at: start + .seconds(5)) == 100)
        let refreshError = #expect(throws: SandboxError.self) {
            try table.refresh(token: lock.token, path: sharePath("/elsewhere"), timeoutSeconds: 1, now: start)
        }
        #expect(refreshError?.code == .preconditionFailed)
        #expect(refreshError?.condition == "lock-token-matches-request-uri")
        // litmus notowner_lock: UNLOCK with a token the server never issued is 409.
        let unlockError = #expect(throws: SandboxError.self) {
            try table.unlock(token: "opaquelocktoken:foobar", path: sharePath("/coll/"), now: start)
        }
        #expect(unlockError?.code == .conflict)
        #expect(unlockError?.condition == "lock-token-matches-request-uri")
        try table.unlock(token: lock.token, path: sharePath("/coll/a/b"), now: start)
        #expect(table.count == 0)
    }

    /// More than Int64.max seconds left (a lock of Int.max seconds, asked about before it was
    /// taken): the count saturates; it once added one to Int.max and trapped.
    @Test func secondsLeftSaturates() throws {
        var table = LockTable()
        let lock = try table.lock(
            sharePath("/t"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: .max, now: start)
        #expect(lock.secondsLeft(at: start) == .max)
        #expect(lock.secondsLeft(at: start - .milliseconds(500)) == .max)
        #expect(lock.secondsLeft(at: start + .milliseconds(500)) == .max)
    }

    @Test func expiredLocksAreIgnoredThenPruned() throws {
        var table = LockTable()
        let lock = try table.lock(
            sharePath("/t"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 30, now: start)
        #expect(lock.secondsLeft(at: start + .milliseconds(29_500)) == 1)
        #expect(!table.locks(covering: try sharePath("/t"), now: start + .seconds(29)).isEmpty)
        let later = start + .seconds(30)
        #expect(table.locks(covering: try sharePath("/t"), now: later).isEmpty)
        try table.checkWrite(sharePath("/t"), recursive: false, submitted: [], now: later)
        #expect(throws: SandboxError.self) { try table.unlock(token: lock.token, path: sharePath("/t"), now: later) }
        #expect(throws: SandboxError.self) {
            try table.refresh(token: lock.token, path: sharePath("/t"), timeoutSeconds: 30, now: later)
        }
        _ = try table.lock(sharePath("/t"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 30, now: later)
        #expect(table.count == 1, "the expired lock was pruned")
    }

    @Test func locksDoNotSurviveTheirItem() throws {
        var table = LockTable()
        _ = try table.take("/d/a", now: start)
        _ = try table.lock(sharePath("/d"), scope: .shared, depth: .zero, owner: nil, timeoutSeconds: 9, now: start)
        let kept = try table.lock(
            sharePath("/dd"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 9, now: start)
        table.removeLocks(within: try sharePath("/d"))
        #expect(table.locks(within: .root, now: start) == [kept])
    }

    @Test func theTableIsCapped() throws {
        var table = LockTable()
        for index in 0..<LockTable.maximumLockCount {
            _ = try table.lock(
                SharePath(checkedNames: ["f\(index)"], endsWithSlash: false), scope: .shared, depth: .zero, owner: nil,
                timeoutSeconds: 10, now: start)
        }
        let error = #expect(throws: SandboxError.self) {
            try table.take("/one-more", .shared, timeout: 10, now: start)
        }
        #expect(error?.code == .tooManyRequests)
        // Once they expire, there is room again.
        _ = try table.lock(
            sharePath("/one-more"), scope: .shared, depth: .zero, owner: nil, timeoutSeconds: 10,
            now: start + .seconds(10))
    }

    @Test func activeLockXMLDescribesTheLock() throws {
        var table = LockTable()
        let lock = try table.lock(
            sharePath("/a&b/"), scope: .shared, depth: .infinity, owner: "<D:href>mailto:x@y</D:href>",
            timeoutSeconds: 3600, now: start)
        let xml = lock.activeLockXML(now: start + .seconds(600))
        #expect(
            xml == "<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:shared/></D:lockscope>"
                + "<D:depth>infinity</D:depth><D:owner><D:href>mailto:x@y</D:href></D:owner>"
                + "<D:timeout>Second-3000</D:timeout><D:locktoken><D:href>\(lock.token)</D:href></D:locktoken>"
                + "<D:lockroot><D:href>/a&amp;b/</D:href></D:lockroot></D:activelock>")
        let infinite = try table.lock(
            sharePath("/f"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: nil, now: start)
        let plain = infinite.activeLockXML(now: start)
        #expect(plain.contains("<D:depth>0</D:depth><D:timeout>Infinite</D:timeout>"))
        #expect(plain.contains("<D:exclusive/>") && !plain.contains("<D:owner>"))
    }
}

@Suite struct LockManagerTests {
    @Test func locksEndOnTheInjectedClock() throws {
        let now = Mutex(Duration.zero)
        let manager = LockManager(clock: { now.withLock { $0 } })
        let lock = try manager.lock(sharePath("/x"), scope: .exclusive, depth: .zero, owner: nil, timeoutSeconds: 5)
        #expect(throws: SandboxError.self) {
            try manager.checkWrite(sharePath("/x"), recursive: false, submitted: [])
        }
        let refreshed = try manager.refresh(
            tokens: ["urn:uuid:nope", lock.token], path: sharePath("/x"), timeoutSeconds: 9)
        #expect(refreshed.expiry == .seconds(9))
        #expect(throws: SandboxError.self) {
            try manager.refresh(tokens: [], path: sharePath("/x"), timeoutSeconds: 9)
        }
        now.withLock { $0 = .seconds(9) }
        try manager.checkWrite(sharePath("/x"), recursive: false, submitted: [])
        #expect(manager.locks(covering: try sharePath("/x")).isEmpty)
    }
}
