/// One coalesced notification of a ``FolderWatcher``: the folder as it is now and what changed since
/// the previous update the consumer received.
public struct FolderUpdate: Sendable {
    /// The folder now.
    public var snapshot: FolderSnapshot
    /// The changes since the previous update (or the watcher's ``FolderWatcher/initialSnapshot``).
    public var changes: FolderDifference
    /// Increases with every rescan the watcher made; gaps mean rescans that were superseded before
    /// the consumer asked for them (their changes are included here).
    public var generation: UInt64
    /// Events were lost since the previous update (kernel queue overflow). The snapshot is still
    /// complete: it was read from the folder after the loss.
    public var didOverflow: Bool
    /// The app's data container was replaced by a restore since the previous update (a watcher that
    /// follows its container, ``FolderWatcher/init(watching:of:configuration:description:logger:)``):
    /// the snapshot is of the folder in the new container, and the changes are against what the
    /// consumer saw of the old one.
    public var containerReplaced: Bool = false
    /// The app was uninstalled (a watcher that follows its container): the snapshot is empty, the
    /// changes remove everything, and this is the last update.
    public var containerRemoved: Bool = false
}

/// The updates of a ``FolderWatcher``, coalesced. Iterate it once: it has a single consumer.
///
/// At most one rescan waits for the consumer; a newer one replaces it, and the changes reported are
/// always computed against what the consumer last saw, so nothing is lost however slowly it reads.
public struct FolderUpdates: AsyncSequence, Sendable {
    /// Each update: the folder now and what changed.
    public typealias Element = FolderUpdate
    /// Updates never fail: the sequence ends when the watcher is cancelled or the folder is removed.
    public typealias Failure = Never

    let stream: AsyncStream<SnapshotMessage>
    let initial: FolderSnapshot

    /// The iterator of the updates; make one only (the sequence has a single consumer).
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), last: initial, overflows: 0, replacements: 0)
    }

    /// Delivers updates, each computed against the one delivered before it.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<SnapshotMessage>.Iterator
        var last: FolderSnapshot
        var overflows: Int
        var replacements: Int

        /// The next update, computed against the last one delivered (or the initial snapshot); waits
        /// for the next rescan that changed something, and `nil` once the watcher has ended.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> FolderUpdate? {
            while let message = await base.next(isolation: actor) {
                let changes = message.snapshot.difference(from: last)
                let overflowed = message.overflows != overflows
                let replaced = message.replacements != replacements
                guard !changes.isEmpty || overflowed || replaced || message.containerRemoved else { continue }
                last = message.snapshot
                overflows = message.overflows
                replacements = message.replacements
                return FolderUpdate(
                    snapshot: message.snapshot, changes: changes, generation: message.generation,
                    didOverflow: overflowed, containerReplaced: replaced, containerRemoved: message.containerRemoved)
            }
            return nil
        }

        /// The next update, as ``next(isolation:)``.
        public mutating func next() async -> FolderUpdate? {
            await next(isolation: nil)
        }
    }
}

/// A rescan, as the reader thread publishes it.
struct SnapshotMessage: Sendable {
    var snapshot: FolderSnapshot
    var generation: UInt64
    /// How many overflows the watcher has seen in all.
    var overflows: Int
    /// How many times the container was replaced in all.
    var replacements: Int
    /// The container was removed: the last message.
    var containerRemoved: Bool
}
