/// The monitor's logic as a pure state machine: decoded inotify records, listings and clock ticks
/// go in; events to report and I/O to perform come out as ``Action`` values. It does no I/O and
/// reads no clock, so it is unit-tested with hand-made records and instants.
///
/// Its owner (``MonitorReader``, on the reader thread) performs each action and feeds the results
/// back: ``watchAdded(_:for:)`` then ``scanned(directory:entries:at:)`` for ``Action/watch(_:)``
/// (or ``watchFailed(_:error:)``), ``rescanned(_:at:)`` for ``Action/rescan``,
/// ``probed(_:result:)`` for ``Action/probe(_:)``.
struct MonitorMachine: Sendable {
    typealias Key = FolderModel.Key
    typealias Instant = ContinuousClock.Instant

    struct Configuration: Sendable, Equatable {
        /// The watched folder.
        var folder: ContainerPath
        var recursive: Bool
        /// How long a file must stay quiet after closing or arriving before it is probed for writers.
        var quietPeriod: Duration
        /// How long an `IN_MOVED_FROM` waits for its `IN_MOVED_TO` before it counts as a move out.
        var pairingWindow: Duration
        /// Whether files are followed to ``FolderEvent/ready(_:)``; when `false`, nothing is probed.
        var tracksReadiness: Bool
    }

    /// What the owner must do.
    enum Action: Sendable, Equatable {
        /// Report an event.
        case emit(FolderEvent)
        /// Add a watch on this directory, report it with ``watchAdded(_:for:)``, then list it and
        /// report the listing with ``scanned(directory:entries:at:)`` (watch first, then scan).
        case watch(Key)
        /// Remove a watch (its directory left the folder, or was replaced).
        case unwatch(Int32)
        /// Watch and list the whole folder again (``TreeArming``) and report it with
        /// ``rescanned(_:at:)``.
        case rescan
        /// Find out whether any process has this file open for writing; report with ``probed(_:result:)``.
        case probe(Key)
        /// The folder is gone: stop.
        case finish
    }

    /// The answer to ``Action/probe(_:)``.
    enum ProbeResult: Sendable, Equatable {
        /// Nobody has the file open for writing (or it cannot be told: the quiet period decides).
        case noWriters
        case openForWriting
        /// The file is no longer there.
        case gone
    }

    /// Where a file is in being written.
    enum WriteState: Sendable, Equatable {
        /// Written to, not yet closed.
        case writing
        /// Closed after writing (or arrived); ready unless something happens before the deadline.
        case settling(Instant)
        /// Handed out in an ``Action/probe(_:)``.
        case probing
    }

    struct PendingMove: Sendable, Equatable {
        var key: Key
        var isDirectory: Bool
        var deadline: Instant
        var order: UInt64
    }

    let configuration: Configuration
    var rootKey: Key { configuration.folder }
    var model: FolderModel
    /// Watch descriptor → directory.
    var watches: [Int32: Key] = [:]
    var watchOfDirectory: [Key: Int32] = [:]
    var writes: [Key: WriteState] = [:]
    /// `IN_MOVED_FROM` records waiting for their partner, by cookie.
    var pendingMoves: [UInt32: PendingMove] = [:]
    var moveOrder: UInt64 = 0
    private(set) var isFinished = false

    init(configuration: Configuration) {
        self.configuration = configuration
        self.model = FolderModel(root: configuration.folder, tracksSubdirectories: configuration.recursive)
    }

    /// The earliest instant at which ``tick(at:)`` has work, or `nil` when idle (no wake-ups).
    var nextDeadline: Instant? {
        var earliest = pendingMoves.values.map(\.deadline).min()
        for case .settling(let deadline) in writes.values where earliest.map({ deadline < $0 }) ?? true {
            earliest = deadline
        }
        return earliest
    }

    /// Handles one inotify record.
    mutating func receive(_ event: InotifyEvent, at now: Instant) -> [Action] {
        guard !isFinished else { return [] }
        if event.mask.contains(.queueOverflow) { return [.emit(.overflow), .rescan] }
        guard let directory = watches[event.watch] else { return [] }  // a watch already dropped
        if event.mask.contains(.ignored) {
            forgetWatch(event.watch)
            return directory == rootKey ? finish() : []
        }
        guard let name = event.name else {
            // About the watched directory itself; a subdirectory's own fate is read from its parent.
            let gone = !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .unmount])
            return gone && directory == rootKey ? finish() : []
        }
        let key = directory.appending(name)
        let isDirectory = event.mask.contains(.isDirectory)
        var actions = resolveMoves(touching: key)
        if event.mask.contains(.create) {
            actions += appeared(key, isDirectory: isDirectory, at: now)
        } else if event.mask.contains(.delete) {
            actions += disappeared(key, unwatching: false)
        } else if event.mask.contains(.movedFrom) {
            actions += movedFrom(key, isDirectory: isDirectory, cookie: event.cookie, at: now)
        } else if event.mask.contains(.movedTo) {
            if event.cookie != 0, let source = pendingMoves.removeValue(forKey: event.cookie) {
                actions += renamed(source.key, to: key, isDirectory: isDirectory, at: now)
            } else {
                actions += appeared(key, isDirectory: isDirectory, at: now)
            }
        } else if event.mask.contains(.modify) {
            actions += wrote(key, at: now)
        } else if event.mask.contains(.closeWrite) {
            actions += closedAfterWriting(key, at: now)
        } else if event.mask.contains(.attributes), !isDirectory {
            actions += attributesChanged(key)
        }
        return actions
    }

    /// Handles expired deadlines: unpaired moves become removals, quiet files are probed.
    mutating func tick(at now: Instant) -> [Action] {
        guard !isFinished else { return [] }
        var actions: [Action] = []
        let expired = pendingMoves.filter { $0.value.deadline <= now }.sorted { $0.value.order < $1.value.order }
        for (cookie, move) in expired {
            pendingMoves[cookie] = nil
            actions += disappeared(move.key, unwatching: true)
        }
        actions += settle(at: now)
        return actions
    }

    /// The folder is gone: report it once and stop.
    mutating func finish() -> [Action] {
        guard !isFinished else { return [] }
        isFinished = true
        pendingMoves = [:]
        writes = [:]
        return [.emit(.folderRemoved(configuration.folder)), .finish]
    }

    // MARK: - Bookkeeping

    mutating func forgetWatch(_ watch: Int32) {
        guard let directory = watches.removeValue(forKey: watch) else { return }
        if watchOfDirectory[directory] == watch { watchOfDirectory[directory] = nil }
    }

    mutating func forgetWrites(under key: Key) {
        writes[key] = nil
        guard model.isDirectory(key) == true else { return }
        for written in writes.keys where written.isDescendant(of: key) { writes[written] = nil }
    }
}
