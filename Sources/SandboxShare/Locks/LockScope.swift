/// Whether a write lock excludes every other lock, or only exclusive ones (RFC 4918 §6.2).
package enum LockScope: String, Sendable, Hashable {
    /// No other lock may cover the item.
    case exclusive
    /// Other shared locks may cover the item; an exclusive one may not.
    case shared
}
