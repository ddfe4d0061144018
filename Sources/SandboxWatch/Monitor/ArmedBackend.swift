import Logging

/// The backend a ``WatchConfiguration`` asks for, armed: inotify watches in place, or a polling
/// interval. Shared by ``FolderMonitor`` and ``FolderWatcher``, so both choose and fall back alike.
enum ArmedBackend: Sendable {
    case inotify(ArmedMonitor)
    case polling(interval: Duration)

    /// Watches `folder` with the configured backend; `.automatic` polls when the kernel has no inotify.
    ///
    /// - Throws: the errors of ``ArmedMonitor/init(configuration:root:)``; for polling, the folder's
    ///   ``/SandboxCore/SandboxError/Code/invalidPath``.
    init(
        folder: ContainerPath, root: ConfinedRoot, configuration: WatchConfiguration, tracksReadiness: Bool
    ) throws(SandboxError) {
        let machine = MonitorMachine.Configuration(
            folder: folder,
            recursive: configuration.recursive,
            quietPeriod: configuration.quietPeriod,
            pairingWindow: configuration.renamePairingWindow,
            tracksReadiness: tracksReadiness
        )
        switch configuration.backend {
        case .polling(let interval):
            try WatchedFolder.check(folder)
            self = .polling(interval: interval)
        case .inotify:
            self = .inotify(try ArmedMonitor(configuration: machine, root: root))
        case .automatic:
            do throws(SandboxError) {
                self = .inotify(try ArmedMonitor(configuration: machine, root: root))
            } catch  where PollingReader.inotifyIsMissing(error) {
                try WatchedFolder.check(folder)
                self = .polling(interval: WatchConfiguration.Backend.fallbackInterval)
            }
        }
    }

    var isPolling: Bool {
        if case .polling = self { true } else { false }
    }

    /// Starts the reader thread, which delivers events, snapshots, or both.
    ///
    /// - Parameter baseline: for polling, the snapshot changes are reported against (read now when `nil`).
    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when the wake-up channel or the reader's thread
    ///   cannot be made; for polling, the errors of ``FolderSnapshot/take(of:in:recursive:)`` for the baseline.
    func start(
        folder: ContainerPath,
        root: ConfinedRoot,
        configuration: WatchConfiguration,
        events: AsyncStream<FolderEvent>.Continuation?,
        snapshots: SnapshotDelivery?,
        baseline: FolderSnapshot? = nil,
        logger: Logger
    ) throws(SandboxError) -> ReaderControl {
        switch self {
        case .inotify(let armed):
            return try armed.start(events: events, snapshots: snapshots, logger: logger)
        case .polling(let interval):
            let control = ReaderControl(wake: try WakeSignal())
            let reader = try PollingReader(
                folder: folder, root: root, configuration: configuration, interval: interval, control: control,
                events: events.map { EventDelivery(continuation: $0) }, snapshots: snapshots, baseline: baseline,
                logger: logger
            )
            try reader.start()
            return control
        }
    }

    /// The inotify descriptor, for diagnostics; `nil` when polling.
    var inotifyDescriptor: CInt? {
        if case .inotify(let armed) = self { armed.inotify.descriptor } else { nil }
    }
}
