import Logging
import Sandbox

/// The rescan-and-refresh pattern (the iOS recipe's `scanDocuments`): a snapshot of a folder now,
/// then one coalesced update per burst of changes, each with the folder's new snapshot and what
/// changed.
///
/// ```swift
/// let watcher = try FolderWatcher(watching: ContainerPath(constant: "Documents"), in: container.root)
/// show(watcher.initialSnapshot)
/// for await update in watcher.updates { show(update.snapshot) }
/// ```
///
/// Events are only hints here: a burst of them (thousands of files copied in) marks the folder
/// dirty, and once it has been quiet for the configuration's ``WatchConfiguration/quietPeriod`` (or
/// ``WatchConfiguration/maximumDelay`` after the burst began) the folder is read again and compared.
/// With the polling backend, the folder is read every interval and an update published when it
/// changed. An overflow of the kernel queue loses nothing: the next update
/// comes from a full rescan and says ``FolderUpdate/didOverflow``.
///
/// Made with ``init(watching:of:configuration:description:logger:)``, a watcher follows the app's
/// data container through its lifecycle operations, as ``ContainerFolderMonitor`` does: after a
/// restore, an update says ``FolderUpdate/containerReplaced`` with the folder as the restored
/// container has it, and watching goes on there; an uninstall ends the updates with one that says
/// ``FolderUpdate/containerRemoved``.
public final class FolderWatcher: Sendable {
    /// The watched folder.
    public let folder: ContainerPath
    /// How it watches.
    public let configuration: Configuration
    /// The folder when watching began (read after the watches were in place).
    public let initialSnapshot: FolderSnapshot
    /// The coalesced updates. Iterate them once: they have a single consumer. They end when the
    /// watcher is cancelled or the folder itself is removed (or, following its container, when
    /// the app is uninstalled).
    public let updates: FolderUpdates
    private let readers: SnapshotReaders
    /// The registration as the container's watcher, when following it.
    private let presenter: ContainerPresenter?

    /// Starts watching `folder` beneath `root` and reads its first snapshot.
    ///
    /// - Parameters:
    ///   - folder: the folder to watch, relative to the container's home (`Documents`).
    ///   - root: the container's root, beneath which `folder` is resolved.
    ///   - configuration: ``WatchConfiguration/recursive``, ``WatchConfiguration/backend``,
    ///     ``WatchConfiguration/quietPeriod`` (how long a burst must have been quiet before the
    ///     folder is read again) and ``WatchConfiguration/maximumDelay`` (the longest an update
    ///     waits while changes keep coming) apply.
    ///   - logger: where the watcher reports what it handles on its own;
    ///     ``FolderMonitor/disabledLogger`` by default.
    /// - Throws: the errors of ``FolderMonitor/init(watching:in:configuration:logger:)`` and of
    ///   ``FolderSnapshot/take(of:in:recursive:)``.
    public init(
        watching folder: ContainerPath, in root: ConfinedRoot, configuration: Configuration = Configuration(),
        logger: Logger = FolderMonitor.disabledLogger
    ) throws(SandboxError) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SnapshotMessage.self, bufferingPolicy: .bufferingNewest(1))
        let outlet = SnapshotOutlet(folder: folder, continuation: continuation)
        let readers = SnapshotReaders(folder: folder, configuration: configuration, outlet: outlet, logger: logger)
        let initial = try readers.start(in: root, reader: 0)
        continuation.onTermination = { _ in readers.requestStop() }
        self.folder = folder
        self.configuration = configuration
        self.initialSnapshot = initial
        self.updates = FolderUpdates(stream: stream, initial: initial)
        self.readers = readers
        self.presenter = nil
    }

    /// Starts watching `folder` of `container`, reads its first snapshot, and registers as the
    /// container's watcher (``/Sandbox/PresenterKind/watch``) to follow it through the app's
    /// lifecycle operations:
    ///
    /// - a restore or an uninstall waits until the watcher knows of it (it answers at once, on a
    ///   thread of its own), so the removal of the container it watched is never taken for the
    ///   folder's: no update shows the old container being removed;
    /// - after a completed restore, the next update says ``FolderUpdate/containerReplaced``: its
    ///   snapshot is the folder in the restored container (its changes are against the old one's
    ///   last update) and the watcher goes on there; the restore returns once it does. A restored
    ///   container without the folder gives an update with an empty snapshot, the last;
    /// - after a completed uninstall, the last update says ``FolderUpdate/containerRemoved``, with
    ///   an empty snapshot;
    /// - after an operation that failed, watching goes on as before.
    ///
    /// - Parameters:
    ///   - folder: the folder to watch, relative to the container's home (`Documents`).
    ///   - container: the app's data container; a restore replaces it, and the watcher follows.
    ///   - configuration: as ``init(watching:in:configuration:logger:)``.
    ///   - description: what the watcher is, as operations name it ("the notes list").
    ///   - logger: as ``init(watching:in:configuration:logger:)``; a restored container that
    ///     cannot be watched is reported there too.
    /// - Throws: the errors of ``init(watching:in:configuration:logger:)`` and of
    ///   ``/Sandbox/ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)``.
    public init(
        watching folder: ContainerPath, of container: Container, configuration: Configuration = Configuration(),
        description: String? = nil, logger: Logger = FolderMonitor.disabledLogger
    ) throws(SandboxError) {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SnapshotMessage.self, bufferingPolicy: .bufferingNewest(1))
        let outlet = SnapshotOutlet(folder: folder, continuation: continuation)
        let readers = SnapshotReaders(folder: folder, configuration: configuration, outlet: outlet, logger: logger)
        let presenter = try ContainerFollower.register(
            following: container, description: description ?? "a watcher of \(folder)"
        ) { step in readers.take(step) }
        let initial: FolderSnapshot
        do throws(SandboxError) {
            initial = try readers.start(in: container.root, reader: 0)
        } catch {
            presenter.close()
            readers.close()
            throw error
        }
        continuation.onTermination = { _ in
            readers.requestStop()
            presenter.close()  // ended (uninstalled, folder removed, nobody reading): operations need not wait
        }
        self.folder = folder
        self.configuration = configuration
        self.initialSnapshot = initial
        self.updates = FolderUpdates(stream: stream, initial: initial)
        self.readers = readers
        self.presenter = presenter
    }

    deinit { cancel() }

    /// Stops watching and waits until the inotify instance is closed; ``updates`` then finishes
    /// (and a watcher that follows its container unregisters).
    public func cancel() {
        presenter?.close()
        readers.close()
    }

    /// For tests and benchmarks: stop reading the kernel's queue until resumed.
    @_spi(Testing) public func pauseReading() { readers.control?.setPaused(true) }

    /// For tests and benchmarks: read the kernel's queue again after ``pauseReading()``.
    @_spi(Testing) public func resumeReading() { readers.control?.setPaused(false) }
}
