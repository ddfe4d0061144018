import Logging

/// Publishes coalesced rescans for a ``FolderWatcher``: activity is noted per inotify record, the
/// settler decides when a burst is over, then the folder is read and the snapshot published (the
/// stream keeps only the newest one).
struct SnapshotDelivery: Sendable {
    typealias Instant = ContinuousClock.Instant

    let continuation: AsyncStream<SnapshotMessage>.Continuation
    let root: ConfinedRoot
    let folder: ContainerPath
    let recursive: Bool
    var settler: Settler
    let logger: Logger
    private(set) var generation: UInt64 = 0
    private(set) var overflows = 0
    private(set) var isTerminated = false

    init(
        continuation: AsyncStream<SnapshotMessage>.Continuation, root: ConfinedRoot, folder: ContainerPath,
        recursive: Bool, settler: Settler, logger: Logger
    ) {
        self.logger = logger
        self.continuation = continuation
        self.root = root
        self.folder = folder
        self.recursive = recursive
        self.settler = settler
    }

    mutating func noteActivity(at now: Instant) { settler.noteActivity(at: now) }

    mutating func noteOverflow(at now: Instant) {
        overflows += 1
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
        generation += 1
        if case .terminated = continuation.yield(
            SnapshotMessage(snapshot: snapshot, generation: generation, overflows: overflows))
        {
            isTerminated = true
        }
    }

    mutating func finish() {
        continuation.finish()
        isTerminated = true
    }
}
