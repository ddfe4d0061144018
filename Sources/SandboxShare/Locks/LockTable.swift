import Foundation
import Sandbox

/// The locks of a share, as a value: taking, refreshing and releasing locks, and the check every
/// write makes (RFC 4918 §6–7, §9.10–9.11). Pure state, no I/O and no clock: every operation is
/// given `now`, and ignores the locks that have expired by then (``pruneExpired(now:)`` drops them).
package struct LockTable: Sendable {
    /// The most locks the table holds at once; the next LOCK is refused until some end.
    package static let maximumLockCount = 10_000

    private var locksByToken: [String: ActiveLock] = [:]

    package init() {}

    /// How many locks the table holds, expired ones included until they are pruned.
    package var count: Int { locksByToken.count }

    /// Takes a new lock on `path`.
    ///
    /// - Parameters:
    ///   - isCollection: whether `path` names a collection, for the lock root's href.
    ///   - timeoutSeconds: the timeout granted (the caller clamps it to its maximum); `nil` for
    ///     an infinite lock.
    /// - Throws: ``SandboxCore/SandboxError/Code/locked`` (`no-conflicting-lock`, the conflicting roots as a
    ///   ``LockConflict`` cause) when an exclusive lock, or any lock for an exclusive request,
    ///   covers `path` or — for depth infinity — lies beneath it;
    ///   ``SandboxCore/SandboxError/Code/malformedRequest`` for depth 1; ``SandboxCore/SandboxError/Code/tooManyRequests``
    ///   when the table is full.
    package mutating func lock(
        _ path: SharePath, isCollection: Bool? = nil, scope: LockScope, depth: Depth, owner: String?,
        timeoutSeconds: Int?, now: Duration
    ) throws(SandboxError) -> ActiveLock {
        guard depth != .one else {
            throw SandboxError(
                .malformedRequest, "A LOCK's Depth is 0 or infinity, not 1; send one of those.", path: path.description)
        }
        pruneExpired(now: now)
        let conflicts = locksByToken.values.filter {
            !$0.isCompatible(with: scope) && ($0.covers(path) || (depth == .infinity && $0.isWithin(path)))
        }
        guard conflicts.isEmpty else {
            throw SandboxError(
                .locked, "'\(path.description.prefix(64))' is locked by another client; wait until it unlocks.",
                path: path.description, underlying: .wrapping(LockConflict(locks: conflicts)),
                condition: "no-conflicting-lock")
        }
        guard locksByToken.count < Self.maximumLockCount else {
            throw SandboxError(
                .tooManyRequests,
                "The share holds \(Self.maximumLockCount) locks already; unlock some or let them expire, then retry.",
                path: path.description)
        }
        let lock = ActiveLock(
            token: "urn:uuid:\(UUID().uuidString.lowercased())", root: path,
            rootIsCollection: isCollection ?? path.endsWithSlash, depth: depth, scope: scope, owner: owner,
            timeoutSeconds: timeoutSeconds, expiry: Self.expiry(after: timeoutSeconds, now: now))
        locksByToken[lock.token] = lock
        return lock
    }

    /// Restarts the timeout of the lock `token`, which must cover `path` (RFC 4918 §9.10.2).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/preconditionFailed`` (`lock-token-matches-request-uri`) when
    ///   no live lock with that token covers `path`.
    package mutating func refresh(
        token: String, path: SharePath, timeoutSeconds: Int?, now: Duration
    ) throws(SandboxError) -> ActiveLock {
        guard var lock = liveLock(token, covering: path, now: now) else {
            throw SandboxError(
                .preconditionFailed,
                "No lock with the submitted token covers '\(path.description.prefix(64))'; take a new lock.",
                path: path.description, condition: "lock-token-matches-request-uri")
        }
        lock.timeoutSeconds = timeoutSeconds
        lock.expiry = Self.expiry(after: timeoutSeconds, now: now)
        locksByToken[token] = lock
        return lock
    }

    /// Releases the lock `token`, which must cover `path` (RFC 4918 §9.11).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/conflict`` (`lock-token-matches-request-uri`) when no live
    ///   lock with that token covers `path`.
    package mutating func unlock(token: String, path: SharePath, now: Duration) throws(SandboxError) {
        guard liveLock(token, covering: path, now: now) != nil else {
            throw SandboxError(
                .conflict,
                "No lock with the Lock-Token sent covers '\(path.description.prefix(64))'; "
                    + "send the token of a lock on it or on a collection above it.",
                path: path.description, condition: "lock-token-matches-request-uri")
        }
        locksByToken[token] = nil
    }

    /// The live locks that cover `path`: its own and its ancestors' depth-infinity ones.
    package func locks(covering path: SharePath, now: Duration) -> [ActiveLock] {
        sorted(locksByToken.values.filter { !$0.hasExpired(at: now) && $0.covers(path) })
    }

    /// The live locks taken on `path` or on anything beneath it.
    package func locks(within path: SharePath, now: Duration) -> [ActiveLock] {
        sorted(locksByToken.values.filter { !$0.hasExpired(at: now) && $0.isWithin(path) })
    }

    /// The check every write makes before changing `path`: each live lock covering it — and, when
    /// `recursive` (DELETE or MOVE of a collection, COPY onto one), each lock beneath it — must
    /// have its token among `submitted` (the tokens of the request's `If` header). Shared locks are
    /// the exception: the token of any one shared lock covering an item is enough for the other
    /// shared locks on it, or no two holders of shared locks could write (as Apache's mod_dav).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/locked`` (`lock-token-submitted`, the locks' roots as a
    ///   ``LockConflict`` cause) naming the first locked path.
    package func checkWrite(
        _ path: SharePath, recursive: Bool, submitted: Set<String>, now: Duration
    ) throws(SandboxError) {
        var blocking = locks(covering: path, now: now).filter { !isSatisfied($0, at: path, submitted, now) }
        if recursive {
            blocking += locks(within: path, now: now).filter {
                !$0.covers(path) && !isSatisfied($0, at: $0.root, submitted, now)
            }
        }
        guard let first = blocking.first else { return }
        throw SandboxError(
            .locked,
            "'\(first.root.description.prefix(64))' is locked; submit its lock token in an If header, or unlock it.",
            path: path.description, underlying: .wrapping(LockConflict(locks: blocking)),
            condition: "lock-token-submitted")
    }

    /// Whether `lock`, which covers `item`, lets a request that submitted `submitted` write it.
    private func isSatisfied(
        _ lock: ActiveLock, at item: SharePath, _ submitted: Set<String>, _ now: Duration
    ) -> Bool {
        if submitted.contains(lock.token) { return true }
        guard lock.scope == .shared else { return false }
        return submitted.contains { token in
            locksByToken[token].map { $0.scope == .shared && !$0.hasExpired(at: now) && $0.covers(item) } == true
        }
    }

    /// Drops the locks on `path` and beneath it, after DELETE, or MOVE from it (locks do not
    /// move with the item, RFC 4918 §7.7).
    package mutating func removeLocks(within path: SharePath) {
        locksByToken = locksByToken.filter { !$0.value.isWithin(path) }
    }

    /// Drops the locks that have expired by `now`.
    package mutating func pruneExpired(now: Duration) {
        if locksByToken.values.contains(where: { $0.hasExpired(at: now) }) {
            locksByToken = locksByToken.filter { !$0.value.hasExpired(at: now) }
        }
    }

    private func liveLock(_ token: String, covering path: SharePath, now: Duration) -> ActiveLock? {
        guard let lock = locksByToken[token], !lock.hasExpired(at: now), lock.covers(path) else { return nil }
        return lock
    }

    /// Locks in a stable order: shallowest root first, then by token.
    private func sorted(_ locks: [ActiveLock]) -> [ActiveLock] {
        locks.sorted { ($0.root.names.count, $0.token) < ($1.root.names.count, $1.token) }
    }

    private static func expiry(after seconds: Int?, now: Duration) -> Duration? {
        seconds.map { now + .seconds(max($0, 0)) }
    }
}
