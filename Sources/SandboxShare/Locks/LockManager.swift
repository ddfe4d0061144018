import Sandbox
import Synchronization

/// The share's locks, shared by every request: a ``LockTable`` behind a mutex, read with a clock.
///
/// Locks live in memory and end with the server. Expiry is lazy: an expired lock is ignored by
/// every operation and dropped when the table next changes.
package final class LockManager: Sendable {
    private let table = Mutex(LockTable())
    private let clock: @Sendable () -> Duration

    /// A manager on `clock`, which gives the time since any fixed epoch; by default the time since
    /// the manager was made, on a monotonic clock (a change of the wall clock does not end locks).
    package init(clock: (@Sendable () -> Duration)? = nil) {
        if let clock {
            self.clock = clock
        } else {
            let start = ContinuousClock.now
            self.clock = { ContinuousClock.now - start }
        }
    }

    /// The time now on the manager's clock, for ``ActiveLock/activeLockXML(now:)``.
    package var now: Duration { clock() }

    /// Takes a lock; see ``LockTable/lock(_:isCollection:scope:depth:owner:timeoutSeconds:now:)``.
    package func lock(
        _ path: SharePath, isCollection: Bool? = nil, scope: LockScope, depth: Depth, owner: String?,
        timeoutSeconds: Int?
    ) throws(SandboxError) -> ActiveLock {
        let now = clock()
        return try table.withLock { (table) throws(SandboxError) -> ActiveLock in
            try table.lock(
                path, isCollection: isCollection, scope: scope, depth: depth, owner: owner,
                timeoutSeconds: timeoutSeconds, now: now)
        }
    }

    /// Refreshes a lock; see ``LockTable/refresh(token:path:timeoutSeconds:now:)``.
    package func refresh(token: String, path: SharePath, timeoutSeconds: Int?) throws(SandboxError) -> ActiveLock {
        let now = clock()
        return try table.withLock { (table) throws(SandboxError) -> ActiveLock in
            table.pruneExpired(now: now)
            return try table.refresh(token: token, path: path, timeoutSeconds: timeoutSeconds, now: now)
        }
    }

    /// Refreshes the first of `tokens` (a refresh LOCK's `If` header) that names a lock covering
    /// `path`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/preconditionFailed`` (`lock-token-matches-request-uri`) when
    ///   none does, e.g. a refresh without an `If` header.
    package func refresh(tokens: Set<String>, path: SharePath, timeoutSeconds: Int?) throws(SandboxError) -> ActiveLock
    {
        let now = clock()
        return try table.withLock { (table) throws(SandboxError) -> ActiveLock in
            table.pruneExpired(now: now)
            let covering = table.locks(covering: path, now: now).map(\.token)
            let token = covering.first { tokens.contains($0) } ?? tokens.sorted().first ?? ""
            return try table.refresh(token: token, path: path, timeoutSeconds: timeoutSeconds, now: now)
        }
    }

    /// Releases a lock; see ``LockTable/unlock(token:path:now:)``.
    package func unlock(token: String, path: SharePath) throws(SandboxError) {
        let now = clock()
        try table.withLock { (table) throws(SandboxError) in
            table.pruneExpired(now: now)
            try table.unlock(token: token, path: path, now: now)
        }
    }

    /// The live locks covering `path` (for `DAV:lockdiscovery` and the `If` header's state).
    package func locks(covering path: SharePath) -> [ActiveLock] {
        let now = clock()
        return table.withLock { $0.locks(covering: path, now: now) }
    }

    /// The live locks on `path` and beneath it.
    package func locks(within path: SharePath) -> [ActiveLock] {
        let now = clock()
        return table.withLock { $0.locks(within: path, now: now) }
    }

    /// The check every write makes; see ``LockTable/checkWrite(_:recursive:submitted:now:)``.
    package func checkWrite(_ path: SharePath, recursive: Bool, submitted: Set<String>) throws(SandboxError) {
        let now = clock()
        try table.withLock { (table) throws(SandboxError) in
            try table.checkWrite(path, recursive: recursive, submitted: submitted, now: now)
        }
    }

    /// Drops the locks on `path` and beneath it (after DELETE, or MOVE from it).
    package func removeLocks(within path: SharePath) {
        table.withLock { $0.removeLocks(within: path) }
    }
}
