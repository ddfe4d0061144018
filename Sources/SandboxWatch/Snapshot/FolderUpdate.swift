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
    public typealias Element = FolderUpdate
    public typealias Failure = Never

    let stream: AsyncStream<SnapshotMessage>
    let initial: FolderSnapshot

    public func makeAsyncIterator() -> Iterator {
        Iterator(base: stream.makeAsyncIterator(), last: initial, overflows: 0)
    }

    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<SnapshotMessage>.Iterator
        var last: FolderSnapshot
        var overflows: Int

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
