import Logging

/// Publishes coalesced rescans for a ``FolderWatcher``: activity is noted per inotify record, the
/// settler decides when a burst is over, then the folder is read and the snapshot published to
/// the watcher's ``SnapshotOutlet`` (its stream keeps only the newest one).
struct SnapshotDelivery: Sendable {
    typealias Instant = ContinuousClock.Instant

    let outlet: SnapshotOutlet
    /// The reader's number at the outlet.
    let reader: Int
    let root: ConfinedRoot
    let folder: ContainerPath
    let recursive: Bool
    var settler: Settler
    let logger: Logger
    private(set) var isTerminated = false

    init(
        outlet: SnapshotOutlet, reader: Int, root: ConfinedRoot, folder: ContainerPath, recursive: Bool,
        settler: Settler, logger: Logger
    ) {
        self.logger = logger
        self.outlet = outlet
        self.reader = reader
        self.root = root
        self.folder = folder
        self.recursive = recursive
        self.settler = settler
    }

    mutating func noteActivity(at now: Instant) { settler.noteActivity(at: now) }

    mutating func noteOverflow(at now: Instant) {
        outlet.noteOverflow()
        settler.noteActivity(at: now)
    }

    /// Rescans and publishes if a burst has settled. A folder that cannot be read is left to the
    /// monitor, which reports its removal and stops (the failure goes to `logger`, at debug level).
    mutating func publishIfSettled(at now: Instant) {
        guard !isTerminated, settler.fire(at: now) else { return }
        let snapshot: FolderSnapshot
        do throws(SandboxError) {
            snapshot = try FolderSnapshot.take(of: folder, in: root, recursive: recursive)
        } catch {
            logger.debug(
                "Could not read '\(folder)' again: \(error.message) The watcher waits for the next change.",
                error: error, metadata: ["error.code": "\(error.code)"])
            return
        }
        publish(snapshot)
    }

    /// Publishes a snapshot (read after a burst settled, or by the polling backend).
    mutating func publish(_ snapshot: FolderSnapshot) {
        guard !isTerminated else { return }
        if !outlet.publish(snapshot, reader: reader) { isTerminated = true }
    }

    /// The reader ends: the outlet decides whether the updates do.
    mutating func finish() {
        outlet.readerEnded(reader)
        isTerminated = true
    }
}
