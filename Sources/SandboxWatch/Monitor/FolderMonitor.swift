import Logging

/// Watches a folder of a container and reports what happens in it as a sequence of ``FolderEvent``s.
///
/// ```swift
/// let monitor = try FolderMonitor(watching: ContainerPath(constant: "Documents"), in: container.root)
/// for await event in monitor.events {
///     if case .ready(let path) = event { try import(path) }
/// }
/// ```
///
/// On Linux it is built on inotify: one instance per monitor, one watch per folder, added through
/// a descriptor the core opens beneath the container, so a symlink swapped in is never followed.
/// A dedicated thread blocks in `poll(2)` and reads the kernel's queue as soon as anything arrives
/// (so the queue does not overflow behind slow consumers), and sleeps without timeouts while
/// nothing is pending: an idle monitor costs no CPU and no wake-ups.
///
/// What it guarantees:
/// - The folder is watched when the initializer returns. Read the folder *after* creating the
///   monitor (watch, then scan), and nothing that happens afterwards is missed.
/// - A subfolder that appears is watched first and listed second, so files created in it at once
///   are reported as ``FolderEvent/added(_:isDirectory:)`` too. A renamed folder is watched and
///   listed again under its new name, so a folder built in a staging folder and renamed into place
///   before its watch could be added is watched all the same, and its contents reported.
/// - A folder moved in from outside is watched and everything in it reported as added; a folder
///   moved out is reported removed, and its watches (and those beneath it) are removed.
/// - When the kernel's queue overflows, ``FolderEvent/overflow`` is reported and every folder is
///   watched and listed again: the names that appeared or disappeared meanwhile are reported, a
///   folder deleted and re-created meanwhile is watched again, and a file whose close was lost is
///   followed to ``FolderEvent/ready(_:)`` like any other.
/// - Names are reported byte for byte as the disk has them, even when they are not UTF-8 (their
///   ``/SandboxCore/ContainerPath/description`` shows such bytes escaped); no name found on disk is skipped.
/// - The event buffer is bounded (``WatchConfiguration/bufferLimit``); a consumer that falls
///   further behind gets ``FolderEvent/overflow`` instead of the events that did not fit, never
///   silence.
/// - When the folder itself is deleted, moved or replaced (by a symlink too: it is never followed),
///   ``FolderEvent/folderRemoved(_:)`` is the last event. A folder replaced by another directory
///   while events were lost is watched again instead.
///
/// Cancel with ``cancel()`` or by ending the iteration; releasing the monitor cancels it too.
public final class FolderMonitor: Sendable {
    /// The watched folder, relative to the container's home.
    public let folder: ContainerPath
    /// How it watches.
    public let configuration: Configuration
    /// The events, in order. Iterate it once: it has a single consumer.
    public let events: AsyncStream<FolderEvent>
    /// Whether the folder is watched by polling (asked for, or inotify is missing) rather than inotify.
    public let isPolling: Bool
    private let control: ReaderControl
    /// The inotify instance's descriptor (owned by the reader thread), `nil` when polling.
    private let inotifyDescriptor: CInt?

    /// Starts watching `folder` beneath `root`.
    ///
    /// - Parameters:
    ///   - folder: the folder to watch, relative to the container's home (`Documents`).
    ///   - root: the container's root, beneath which `folder` is resolved.
    ///   - configuration: whether subfolders are watched, the backend (inotify or polling), the
    ///     quiet period before ``FolderEvent/ready(_:)`` and the event buffer's limit.
    ///   - logger: where the monitor reports what it handles on its own (a file it could not check
    ///     for writers); ``disabledLogger`` by default.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` or
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` for the folder (symlinks are not
    ///   followed); ``/SandboxCore/SandboxError/Code/invalidPath`` for a path with `..`;
    ///   ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when no inotify instance is left (the
    ///   message names `/proc/sys/fs/inotify/max_user_instances`);
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` when the watch limit is reached (it names
    ///   `/proc/sys/fs/inotify/max_user_watches`).
    public init(
        watching folder: ContainerPath, in root: ConfinedRoot, configuration: Configuration = Configuration(),
        logger: Logger = FolderMonitor.disabledLogger
    ) throws(SandboxError) {
        let backend = try ArmedBackend(folder: folder, root: root, configuration: configuration, tracksReadiness: true)
        let (stream, continuation) = AsyncStream.makeStream(
            of: FolderEvent.self, bufferingPolicy: .bufferingOldest(configuration.bufferLimit))
        let control = try backend.start(
            folder: folder, root: root, configuration: configuration, events: continuation, snapshots: nil,
            logger: logger)
        continuation.onTermination = { _ in control.requestStop() }
        self.folder = folder
        self.configuration = configuration
        self.isPolling = backend.isPolling
        self.events = stream
        self.control = control
        self.inotifyDescriptor = backend.inotifyDescriptor
    }

    /// Watches the container's `Documents` folder.
    ///
    /// - Throws: as ``init(watching:in:configuration:logger:)``.
    public convenience init(
        documentsOf container: Container, configuration: Configuration = Configuration()
    ) throws(SandboxError) {
        try self.init(watching: ContainerPath(constant: "Documents"), in: container.root, configuration: configuration)
    }

    deinit { cancel() }

    /// Stops watching and waits until the inotify instance is closed; ``events`` then finishes.
    /// Calling it again does nothing.
    public func cancel() {
        control.requestStop()
        control.waitUntilExited()
    }

    /// For tests and benchmarks: stop reading the kernel's queue (it fills and overflows) until
    /// resumed.
    @_spi(Testing) public func pauseReading() { control.setPaused(true) }

    /// For tests and benchmarks: read the kernel's queue again after ``pauseReading()``.
    @_spi(Testing) public func resumeReading() { control.setPaused(false) }

    /// For tests: the number of inotify watches in place while the monitor runs, `nil` when polling
    /// (or when procfs cannot tell).
    package var kernelWatchCount: Int? { inotifyDescriptor.flatMap(InotifyInstance.watchCount(of:)) }
}
