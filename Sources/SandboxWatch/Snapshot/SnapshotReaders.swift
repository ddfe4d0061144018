import Logging
import Synchronization

/// The reader thread of a ``FolderWatcher``: one for a watcher of a folder, one per container in
/// turn for a watcher that follows its container (replaced on the presenter's thread, see
/// ``ContainerFollower``).
final class SnapshotReaders: Sendable {
    let folder: ContainerPath
    let configuration: WatchConfiguration
    let outlet: SnapshotOutlet
    let logger: Logger

    private struct Current {
        var control: ReaderControl?
        var reader = 0
        var closed = false
    }

    private let current = Mutex(Current())

    init(folder: ContainerPath, configuration: WatchConfiguration, outlet: SnapshotOutlet, logger: Logger) {
        self.folder = folder
        self.configuration = configuration
        self.outlet = outlet
        self.logger = logger
    }

    /// Watches the folder beneath `root` as reader `reader` (the first is 0; a later one is
    /// announced to the outlet as the replaced container's, with its first snapshot) and returns
    /// that snapshot, read once the watches are in place.
    ///
    /// - Throws: the errors of ``FolderMonitor/init(watching:in:configuration:logger:)`` and of
    ///   ``FolderSnapshot/take(of:in:recursive:)``.
    func start(in root: ConfinedRoot, reader: Int) throws(SandboxError) -> FolderSnapshot {
        let backend = try ArmedBackend(folder: folder, root: root, configuration: configuration, tracksReadiness: false)
        let snapshot = try FolderSnapshot.take(of: folder, in: root, recursive: configuration.recursive)
        if reader > 0 { outlet.replaced(by: snapshot, reader: reader) }
        let delivery = SnapshotDelivery(
            outlet: outlet, reader: reader, root: root, folder: folder, recursive: configuration.recursive,
            settler: Settler(settle: configuration.quietPeriod, maximumDelay: configuration.maximumDelay),
            logger: logger)
        let control = try backend.start(
            folder: folder, root: root, configuration: configuration, events: nil, snapshots: delivery,
            baseline: snapshot, logger: logger)
        let installed = current.withLock { current -> Bool in
            guard !current.closed, current.reader == reader, current.control == nil else { return false }
            current.control = control
            return true
        }
        if !installed { Self.stop(control) }  // a later container is watched already, or the watcher ended
        return snapshot
    }

    /// Does what `step` asks, on the presenter's thread: when it returns, the operation goes on.
    func take(_ step: ContainerStep) {
        switch step {
        case .willChange:
            outlet.hold()
        case .stayed:
            outlet.release()
        case .removed:
            outlet.hold()
            stopCurrent()
            outlet.removed()
        case .unreadable(let error):
            outlet.hold()
            stopCurrent()
            logger.warning(
                "The restored container cannot be opened: \(error.message)", error: error,
                metadata: ["error.code": "\(error.code)"])
            outlet.replaced(by: nil, reader: nextReader())
        case .replaced(let container):
            outlet.hold()
            stopCurrent()
            let next = nextReader()
            do throws(SandboxError) {
                _ = try start(in: container.root, reader: next)
            } catch {
                logger.warning(
                    "'\(folder)' cannot be watched in the restored container: \(error.message)", error: error,
                    metadata: ["error.code": "\(error.code)"])
                outlet.replaced(by: nil, reader: next)  // an empty folder, and the updates end
            }
        }
    }

    /// Stops for good: the updates end.
    func close() {
        current.withLock { $0.closed = true }
        stopCurrent()
        outlet.finish()
    }

    /// Asks the current reader to stop, without waiting (safe on any thread).
    func requestStop() {
        current.withLock(\.control)?.requestStop()
    }

    /// The current reader's control, for pausing it (tests and benchmarks).
    var control: ReaderControl? { current.withLock(\.control) }

    private func nextReader() -> Int {
        current.withLock { current in
            current.reader += 1
            return current.reader
        }
    }

    /// Stops the current reader and waits until it exited (never under the lock: the reader's
    /// last steps may need it).
    private func stopCurrent() {
        let control = current.withLock { current in
            defer { current.control = nil }
            return current.control
        }
        if let control { Self.stop(control) }
    }

    private static func stop(_ control: ReaderControl) {
        control.requestStop()
        control.waitUntilExited()
    }
}
