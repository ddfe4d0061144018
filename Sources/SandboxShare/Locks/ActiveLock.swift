import Sandbox

/// One write lock the share granted (RFC 4918 §6): its token, the item it was taken on, how far it
/// reaches, and when it ends.
///
/// Times are durations since an epoch of the ``LockManager``'s clock (a monotonic one), so a
/// table can be tested with any `now`.
package struct ActiveLock: Sendable, Equatable {
    /// The lock token, `urn:uuid:<random UUID>` (RFC 4918 §6.5: unique across all time).
    package var token: String
    /// The item the lock was taken on (the lock root).
    package var root: SharePath
    /// Whether the root is a collection, for the root's href (`/dir/`).
    package var rootIsCollection: Bool
    /// `.zero` (the root only) or `.infinity` (the root and everything beneath it).
    package var depth: Depth
    /// Exclusive or shared.
    package var scope: LockScope
    /// The `DAV:owner` element's content as the client sent it, an XML fragment; `nil` when none.
    package var owner: String?
    /// The timeout granted, in seconds; `nil` for an infinite lock.
    package var timeoutSeconds: Int?
    /// When the lock ends; `nil` for an infinite lock.
    package var expiry: Duration?

    /// Whether the lock covers `path`: the root itself, or anything beneath it for depth infinity.
    package func covers(_ path: SharePath) -> Bool {
        path == root || (depth == .infinity && path.isDescendant(of: root))
    }

    /// Whether the lock lies at or beneath `path`.
    package func isWithin(_ path: SharePath) -> Bool {
        root == path || root.isDescendant(of: path)
    }

    /// Whether the lock has ended at `now`.
    package func hasExpired(at now: Duration) -> Bool {
        guard let expiry else { return false }
        return expiry <= now
    }

    /// The whole seconds left at `now` (rounded up, at least 0); `nil` for an infinite lock.
    package func secondsLeft(at now: Duration) -> Int? {
        guard let expiry else { return nil }
        let left = expiry - now
        guard left > .zero else { return 0 }
        return Int(clamping: left.clampedSecondsRoundedUp)
    }

    /// Whether a new lock of `scope` may coexist with this one: only two shared locks can.
    package func isCompatible(with scope: LockScope) -> Bool {
        self.scope == .shared && scope == .shared
    }
}
