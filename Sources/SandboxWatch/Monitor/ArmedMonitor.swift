import Foundation
import Glibc
import Logging

/// A monitor whose watches are in place and whose starting state is recorded, before its reader
/// thread runs. Arming happens on the caller's thread so that errors (limits, a missing folder)
/// are thrown from the initializer, and so that the folder is watched once it returns.
struct ArmedMonitor: Sendable {
    var machine: MonitorMachine
    let inotify: InotifyInstance
    let root: ConfinedRoot

    /// Watches `configuration.folder` (and, when recursive, every folder beneath it, each watched
    /// before it is listed).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidPath`` for a path with `..`;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` or
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` for the folder (also for a symlink);
    ///   ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` naming `max_user_instances`;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` naming `max_user_watches`; the error of a
    ///   folder beneath it that cannot be watched (say,
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied``). A folder too deep for a path to name
    ///   is not thrown: it is reported as ``FolderEvent/failed(_:)`` once the monitor runs.
    init(configuration: MonitorMachine.Configuration, root: ConfinedRoot) throws(SandboxError) {
        try WatchedFolder.check(configuration.folder)
        self.root = root
        inotify = try InotifyInstance()
        machine = MonitorMachine(configuration: configuration)
        let arming = try TreeArming.arm(
            configuration.folder, recursive: configuration.recursive, root: root, inotify: inotify)
        // Folders too deep to be named are reported once the monitor runs; anything else is thrown.
        if let failure = arming.failures.first(where: { $0.error.code != .nameTooLong }) { throw failure.error }
        initialActions = machine.recordBaseline(arming)
    }

    /// What the reader performs first: the arming's failures, reported.
    private(set) var initialActions: [MonitorMachine.Action] = []

    /// Starts the reader thread.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when the wake-up channel or the
    ///   thread cannot be made.
    func start(
        events: AsyncStream<FolderEvent>.Continuation?, snapshots: SnapshotDelivery?, logger: Logger
    ) throws(SandboxError) -> ReaderControl {
        let control = ReaderControl(wake: try WakeSignal())
        let box = ReaderBox(
            MonitorReader(
                armed: self, control: control, events: events.map { EventDelivery(continuation: $0) },
                snapshots: snapshots, logger: logger))
        let name = "sandbox-watch \(machine.configuration.folder)"
        try OwnedThread.detached(name: name) {
            box.run()
            control.markExited()
        }
        return control
    }
}

/// Holds the reader for its thread, which releases it (closing the inotify and container
/// descriptors) before it reports that it has exited.
///
/// `@unchecked Sendable`: after `start`, only the reader thread touches `reader`.
private final class ReaderBox: @unchecked Sendable {
    private var reader: MonitorReader?

    init(_ reader: MonitorReader) { self.reader = reader }

    func run() {
        reader?.run()
        reader = nil
    }
}
