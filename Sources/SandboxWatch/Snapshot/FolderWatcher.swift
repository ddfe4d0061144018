import Logging

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
public final class FolderWatcher: Sendable {
    /// The watched folder.
    public let folder: ContainerPath
    /// How it watches.
    public let configuration: Configuration
    /// The folder when watching began (read after the watches were in place).
    public let initialSnapshot: FolderSnapshot
    /// The coalesced updates. Iterate them once: they have a single consumer. They end when the
    /// watcher is cancelled or the folder itself is removed.
    public let updates: FolderUpdates
    private let control: ReaderControl

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
        let backend = try ArmedBackend(folder: folder, root: root, configuration: configuration, tracksReadiness: false)
        let initial = try FolderSnapshot.take(of: folder, in: root, recursive: configuration.recursive)
        let (stream, continuation) = AsyncStream.makeStream(
            of: SnapshotMessage.self, bufferingPolicy: .bufferingNewest(1))
        let delivery = SnapshotDelivery(
            continuation: continuation, root: root, folder: folder, recursive: configuration.recursive,
            settler: Settler(settle: configuration.quietPeriod, maximumDelay: configuration.maximumDelay),
            logger: logger
        )
        let control = try backend.start(
            folder: folder, root: root, configuration: configuration, events: nil, snapshots: delivery,
            baseline: initial, logger: logger
        )
        continuation.onTermination = { _ in control.requestStop() }
        self.folder = folder
        self.configuration = configuration
        self.initialSnapshot = initial
        self.updates = FolderUpdates(stream: stream, initial: initial)
        self.control = control
    }

    deinit { cancel() }

    /// Stops watching and waits until the inotify instance is closed; ``updates`` then finishes.
    public func cancel() {
        control.requestStop()
        control.waitUntilExited()
    }

    /// For tests and benchmarks: stop reading the kernel's queue until resumed.
    @_spi(Testing) public func pauseReading() { control.setPaused(true) }

    /// For tests and benchmarks: read the kernel's queue again after ``pauseReading()``.
    @_spi(Testing) public func resumeReading() { control.setPaused(false) }
}
