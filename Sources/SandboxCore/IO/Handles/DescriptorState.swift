/// Where a shared descriptor is in its life: open, closing (close was asked for while calls were
/// using it), closed. It only moves forward.
///
/// Each system call on the descriptor holds a lease (counted by ``LeaseCount``) for its duration.
/// Closing while leases are held only marks the descriptor: the last lease to end closes it. So a
/// descriptor is closed exactly once, and never while a call is using it (closing under a running
/// `pread` could let the number be reused for another file, which the `pread` would then read).
/// ``SharedDescriptor`` keeps the phase in an atomic word, as its ``rawValue``.
enum DescriptorState: Int, Equatable {
    case open = 0
    /// Close was requested; the descriptor is closed when the last lease ends.
    case closing = 1
    case closed = 2
}
