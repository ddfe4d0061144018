import Glibc

/// A directory descriptor that a write keeps until it publishes or discards its file: the target's
/// parent, or the staging directory.
///
/// A class, so that a pending write (a `Sendable` value kept by a ``StagedFile`` across many calls)
/// can hold it; closed when the last holder goes away, unless it was only borrowed.
final class HeldDirectory: Sendable {
    let rawValue: CInt
    private let isOwned: Bool

    init(taking owned: consuming OwnedDescriptor) {
        rawValue = owned.release()
        isOwned = true
    }

    /// A descriptor the caller keeps open, and closes, after the write is over.
    init(borrowing rawValue: CInt) {
        self.rawValue = rawValue
        isOwned = false
    }

    deinit {
        if isOwned { _ = Glibc.close(rawValue) }
    }
}
