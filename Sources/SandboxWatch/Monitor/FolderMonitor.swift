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
/// a descriptor opened beneath the container (see ``DirectoryOpener``). A dedicated thread blocks
/// in `poll(2)` and reads the kernel's queue as soon as anything arrives (so the queue does not
/// overflow behind slow consumers), and sleeps without timeouts while nothing is pending: an idle
/// monitor costs no CPU and no wake-ups.
///
/// What it guarantees:
/// - The folder is watched when the initializer returns. Read the folder *after* creating the
///   monitor (watch, then scan), and nothing that happens afterwards is missed.
/// - A subfolder that appears is watched first and listed second, so files created in it at once
///   are reported as ``FolderEvent/added(_:isDirectory:)`` too.
/// - When the kernel's queue overflows, ``FolderEvent/overflow`` is reported, the folder is
///   rescanned, and the names that appeared or disappeared meanwhile are reported.
/// - The event buffer is bounded (``Options/bufferLimit``); a consumer that falls further behind
///   gets ``FolderEvent/overflow`` instead of the events that did not fit, never silence.
/// - When the folder itself is deleted or moved, ``FolderEvent/folderRemoved(_:)`` is the last event.
///
/// Cancel with ``cancel()`` or by ending the iteration; releasing the monitor cancels it too.
public final class FolderMonitor: Sendable {
    /// How a monitor watches.
    public struct Options: Sendable, Equatable {
        /// Watch subfolders too (one inotify watch per folder, counted against
        /// `fs.inotify.max_user_watches`).
        public var recursive: Bool
        /// How long a file must stay quiet after it was closed or arrived before it is probed and
        /// reported ready. Longer than the pauses of writers that reopen a file per chunk.
        public var quietPeriod: Duration
        /// How long a move out of one watched folder waits for its arrival in another before it
        /// counts as a removal.
        public var renamePairingWindow: Duration
        /// Most events buffered for a consumer that is behind; past it, ``FolderEvent/overflow``.
        public var bufferLimit: Int
        /// How the folder is watched: inotify, or polling where inotify is missing or when asked.
        public var backend: Backend

        public init(
            recursive: Bool = true,
            quietPeriod: Duration = .milliseconds(100),
            renamePairingWindow: Duration = .milliseconds(50),
            bufferLimit: Int = 16_384,
            backend: Backend = .automatic
        ) {
            self.recursive = recursive
            self.quietPeriod = quietPeriod
            self.renamePairingWindow = renamePairingWindow
            self.bufferLimit = max(1, bufferLimit)
            self.backend = backend
        }
    }

    /// The mechanism a monitor watches with.
    public enum Backend: Sendable, Equatable {
        /// inotify; polling every second when the kernel has no inotify (`inotify_init1` fails with `ENOSYS`).
        case automatic
        /// inotify only: its errors are thrown.
        case inotify
        /// A ``FolderSnapshot`` every `interval`, compared with the previous one. Renames come out as
        /// a removal and an addition, changes undone within one interval go unseen, and the thread
        /// wakes once per interval even while nothing happens.
        case polling(interval: Duration)

        /// The interval ``automatic`` polls at when it has to.
        public static let fallbackInterval: Duration = .seconds(1)
    }

    /// The watched folder, relative to the container's home.
    public let folder: ContainerPath
    public let options: Options
    /// The events, in order. Iterate it once: it has a single consumer.
    public let events: AsyncStream<FolderEvent>
    /// Whether the folder is watched by polling (asked for, or inotify is missing) rather than inotify.
    public let isPolling: Bool
    private let control: ReaderControl

    /// Starts watching `folder` beneath `root`.
    ///
    /// - Throws: ``SandboxError/Code/notFound`` or ``SandboxError/Code/notADirectory`` for the folder
    ///   (symlinks are not followed); ``SandboxError/Code/invalidPath`` for a path with `..`;
    ///   ``SandboxError/Code/tooManyOpenFiles`` when no inotify instance is left (the message names
    ///   `/proc/sys/fs/inotify/max_user_instances`); ``SandboxError/Code/noSpace`` when the watch
    ///   limit is reached (it names `/proc/sys/fs/inotify/max_user_watches`).
    public init(watching folder: ContainerPath, in root: ConfinedRoot, options: Options = Options()) throws(SandboxError) {
        let configuration = MonitorMachine.Configuration(
            folder: folder,
            recursive: options.recursive,
            quietPeriod: options.quietPeriod,
            pairingWindow: options.renamePairingWindow,
            tracksReadiness: true
        )
        var pollingInterval: Duration?
        var armed: ArmedMonitor?
        switch options.backend {
        case .polling(let interval):
            pollingInterval = interval
        case .inotify:
            armed = try ArmedMonitor(configuration: configuration, root: root)
        case .automatic:
            do throws(SandboxError) {
                armed = try ArmedMonitor(configuration: configuration, root: root)
            } catch where PollingReader.inotifyIsMissing(error) {
                pollingInterval = Backend.fallbackInterval
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: FolderEvent.self, bufferingPolicy: .bufferingOldest(options.bufferLimit))
        let control: ReaderControl
        if let armed {
            control = try armed.start(events: continuation, snapshots: nil)
        } else {
            control = ReaderControl(wake: try WakeSignal())
            let reader = try PollingReader(
                folder: folder, root: root, options: options, interval: pollingInterval ?? Backend.fallbackInterval,
                control: control, events: EventDelivery(continuation: continuation)
            )
            reader.start()
        }
        continuation.onTermination = { _ in control.requestStop() }
        self.folder = folder
        self.options = options
        self.isPolling = armed == nil
        self.events = stream
        self.control = control
    }

    /// Watches the container's `Documents` folder.
    ///
    /// - Throws: as ``init(watching:in:options:)``.
    public convenience init(documentsOf container: Container, options: Options = Options()) throws(SandboxError) {
        try self.init(watching: ContainerPath(constant: "Documents"), in: container.root, options: options)
    }

    deinit { cancel() }

    /// Stops watching and waits until the inotify instance is closed; ``events`` then finishes.
    /// Calling it again does nothing.
    public func cancel() {
        control.requestStop()
        control.waitUntilExited()
    }

    /// For tests: stop reading the kernel's queue (it fills and overflows) until resumed.
    package func pauseReading() { control.setPaused(true) }

    package func resumeReading() { control.setPaused(false) }
}
