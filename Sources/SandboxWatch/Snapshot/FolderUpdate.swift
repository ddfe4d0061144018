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
        Iterator(base: stream.makeAsyncIterator(), last: initial, overflows: 0)
    }

    /// Delivers updates, each computed against the one delivered before it.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<SnapshotMessage>.Iterator
        var last: FolderSnapshot
        var overflows: Int

        /// The next update, computed against the last one delivered (or the initial snapshot); waits
        /// for the next rescan that changed something, and `nil` once the watcher has ended.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> FolderUpdate? {
            while let message = await base.next(isolation: actor) {
                let changes = message.snapshot.difference(from: last)
                let overflowed = message.overflows != overflows
                guard !changes.isEmpty || overflowed else { continue }
                last = message.snapshot
                overflows = message.overflows
                return FolderUpdate(
                    snapshot: message.snapshot, changes: changes, generation: message.generation,
                    didOverflow: overflowed)
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
}
