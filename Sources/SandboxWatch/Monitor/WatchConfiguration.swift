/// How a ``FolderMonitor`` or a ``FolderWatcher`` watches its folder. Both are configured with this
/// one type, with the same defaults; each field says which of them reads it.
///
/// ```swift
/// let monitor = try FolderMonitor(documentsOf: container, configuration: .init(quietPeriod: .milliseconds(200)))
/// let watcher = try FolderWatcher(watching: "Documents", in: container.root, configuration: .init(recursive: false))
/// ```
public struct WatchConfiguration: Sendable, Equatable {
    /// Watch subfolders too (one inotify watch per folder, counted against
    /// `fs.inotify.max_user_watches`). Both.
    public var recursive: Bool
    /// How the folder is watched: inotify, or polling where inotify is missing or when asked. Both.
    public var backend: Backend
    /// How long things must stay quiet. A monitor probes a file this long after it was closed or
    /// arrived, and reports it ready (make it longer than the pauses of writers that reopen a file
    /// per chunk); a watcher reads the folder again once a burst of changes has been quiet this long.
    public var quietPeriod: Duration
    /// The longest a watcher's update waits while changes keep coming. Watcher only.
    public var maximumDelay: Duration
    /// How long a move out of one watched folder waits for its arrival in another before it counts
    /// as a removal. Monitor only.
    public var renamePairingWindow: Duration
    /// Most events a monitor buffers for a consumer that is behind; past it,
    /// ``FolderEvent/overflow``. Monitor only (a watcher keeps the newest snapshot alone).
    public var bufferLimit: Int

    /// A configuration; each value as its property says. Negative durations count as zero and a buffer
    /// limit below 1 as 1.
    public init(
        recursive: Bool = true,
        backend: Backend = .automatic,
        quietPeriod: Duration = .milliseconds(100),
        maximumDelay: Duration = .milliseconds(500),
        renamePairingWindow: Duration = .milliseconds(50),
        bufferLimit: Int = 16_384
    ) {
        self.recursive = recursive
        self.backend = backend
        self.quietPeriod = max(quietPeriod, .zero)
        self.maximumDelay = max(maximumDelay, .zero)
        self.renamePairingWindow = max(renamePairingWindow, .zero)
        self.bufferLimit = max(1, bufferLimit)
    }

    /// The mechanism a monitor or a watcher watches with.
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
}

extension FolderMonitor {
    /// How a monitor watches: the same type as ``FolderWatcher/Configuration``.
    public typealias Configuration = WatchConfiguration
}

extension FolderWatcher {
    /// How a watcher watches: the same type as ``FolderMonitor/Configuration``.
    public typealias Configuration = WatchConfiguration
}
