import Synchronization

/// Where a ``FolderWatcher``'s readers publish: one reader for a watcher of a folder, one per
/// container in turn for a watcher that follows its container. It numbers the rescans and counts
/// overflows and container replacements across readers, and decides when the updates end.
///
/// While an operation may replace or remove the container (``hold()``), a reader's snapshots are
/// withheld (the container being removed is not the folder's news) and its end does not end the
/// updates: the operation's outcome decides (``release()``, ``replaced(by:reader:)``,
/// ``removed()``). Readers are numbered: only the current one (the latest container's) is heard.
final class SnapshotOutlet: Sendable {
    private struct State {
        /// The current reader's number.
        var reader = 0
        var generation: UInt64 = 0
        var overflows = 0
        var replacements = 0
        var holding = false
        /// The newest snapshot withheld while holding.
        var withheld: FolderSnapshot?
        /// The reader ended while holding.
        var readerEnded = false
        var finished = false
    }

    let folder: ContainerPath
    private let continuation: AsyncStream<SnapshotMessage>.Continuation
    private let state = Mutex(State())

    init(folder: ContainerPath, continuation: AsyncStream<SnapshotMessage>.Continuation) {
        self.folder = folder
        self.continuation = continuation
    }

    /// Events were lost: the next update says so.
    func noteOverflow() { state.withLock { $0.overflows += 1 } }

    /// Publishes reader `reader`'s snapshot; whether anyone still reads the updates.
    func publish(_ snapshot: FolderSnapshot, reader: Int) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            guard state.reader == reader else { return true }  // an earlier container's: being stopped
            guard !state.holding else {
                state.withheld = snapshot
                return true
            }
            return yield(snapshot, &state)
        }
    }

    /// Reader `reader` ended (the folder removed, the watcher cancelled, nobody reading): so do the
    /// updates, unless an operation may be replacing the container.
    func readerEnded(_ reader: Int) {
        state.withLock { state in
            guard state.reader == reader else { return }
            guard state.holding else { return finish(&state) }
            state.readerEnded = true
        }
    }

    /// An operation may replace or remove the container from now on.
    func hold() { state.withLock { $0.holding = true } }

    /// The operation failed and the container stayed: what was withheld is published, and the
    /// updates end if the reader ended meanwhile.
    func release() {
        state.withLock { state in
            state.holding = false
            defer { state.withheld = nil }
            if let withheld = state.withheld, !state.finished { _ = yield(withheld, &state) }
            if state.readerEnded { finish(&state) }
        }
    }

    /// A restore replaced the container: `snapshot` is the folder in the new one, published as
    /// such, and `reader` the one that reads it from now on. `nil` when it cannot be read there: an
    /// empty folder is published, and the updates end.
    func replaced(by snapshot: FolderSnapshot?, reader: Int) {
        state.withLock { state in
            (state.holding, state.readerEnded, state.withheld, state.reader) = (false, false, nil, reader)
            state.replacements += 1
            guard !state.finished else { return }
            _ = yield(snapshot ?? FolderSnapshot(folder: folder, items: [:]), &state)
            if snapshot == nil { finish(&state) }
        }
    }

    /// An uninstall removed the container: an empty folder is published, marked so, and the
    /// updates end.
    func removed() {
        state.withLock { state in
            guard !state.finished else { return }
            _ = yield(FolderSnapshot(folder: folder, items: [:]), &state, containerRemoved: true)
            finish(&state)
        }
    }

    /// Ends the updates.
    func finish() { state.withLock { finish(&$0) } }

    private func yield(_ snapshot: FolderSnapshot, _ state: inout State, containerRemoved: Bool = false) -> Bool {
        state.generation += 1
        let message = SnapshotMessage(
            snapshot: snapshot, generation: state.generation, overflows: state.overflows,
            replacements: state.replacements, containerRemoved: containerRemoved)
        if case .terminated = continuation.yield(message) {
            state.finished = true
            return false
        }
        return true
    }

    private func finish(_ state: inout State) {
        guard !state.finished else { return }
        state.finished = true
        continuation.finish()
    }
}
