import Foundation
import Glibc
import Logging
import SandboxCore
import SystemPackage

/// The fallback backend of ``FolderMonitor`` and ``FolderWatcher``: reads a ``FolderSnapshot`` every
/// `interval` and reports the differences (as events, or as the watcher's snapshot), for kernels
/// without inotify (`inotify_init1` fails with `ENOSYS`) or when ``WatchConfiguration/backend``
/// asks for it.
///
/// What it cannot know: renames come out as a removal and an addition (nothing pairs them), changes
/// undone within one interval are not seen, and there is no overflow. It reports in the inotify
/// backend's terms (see ``PolledChanges``), and, like it, never follows a symlink at the folder. A
/// file is ``FolderEvent/ready(_:)`` once its size and modification date stayed the same for the
/// quiet period (at least one interval) and no process has it open for writing (the same lease
/// probe as the inotify backend). Its thread sleeps in `poll(2)` on the wake-up channel with the
/// interval as timeout, so it wakes once per interval even when nothing happens.
struct PollingReader: Sendable {
    typealias Instant = ContinuousClock.Instant

    let folder: ContainerPath
    let root: ConfinedRoot
    let recursive: Bool
    /// Where what the reader handles on its own goes.
    let logger: Logger
    let interval: Duration
    let quietPeriod: Duration
    let control: ReaderControl
    /// A monitor's events, a watcher's snapshots.
    var events: EventDelivery?
    var snapshots: SnapshotDelivery?
    private var last: FolderSnapshot
    /// Files written since they were last ready, with when they last changed.
    private var pending: [ContainerPath: Instant] = [:]

    /// - Parameter baseline: what changes are reported against; read now when `nil` (what is there
    ///   now is not reported, as with the inotify backend's arming).
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidPath`` for a folder path with `..`, and the errors of
    ///   ``FolderSnapshot/take(of:in:recursive:)`` for the baseline.
    init(
        folder: ContainerPath,
        root: ConfinedRoot,
        configuration: WatchConfiguration,
        interval: Duration,
        control: ReaderControl,
        events: EventDelivery?,
        snapshots: SnapshotDelivery?,
        baseline: FolderSnapshot?,
        logger: Logger
    ) throws(SandboxError) {
        try WatchedFolder.check(folder)
        self.logger = logger
        self.folder = folder
        self.root = root
        self.recursive = configuration.recursive
        self.interval = max(interval, .milliseconds(1))
        self.quietPeriod = configuration.quietPeriod
        self.control = control
        self.events = events
        self.snapshots = snapshots
        if let baseline {
            last = baseline
        } else {
            last = try FolderSnapshot.take(of: folder, in: root, recursive: configuration.recursive)
        }
    }

    private var consumerIsGone: Bool { events?.isTerminated == true || snapshots?.isTerminated == true }

    mutating func run() {
        defer {
            events?.finish()
            snapshots?.finish()
        }
        var paused = false
        while true {
            let requests = control.requests
            if requests.stop || consumerIsGone { return }
            if requests.pause != paused {
                paused = requests.pause
                control.acknowledge(paused: paused)
            }
            var descriptors = [pollfd(fd: control.wake.descriptor, events: Int16(POLLIN), revents: 0)]
            let timeout = paused ? -1 : interval.pollTimeout
            if poll(&descriptors, 1, timeout) < 0 && errno != EINTR {
                events?.deliver(
                    .failed(.systemCall("poll", errno: Errno(rawValue: errno), path: "wake-up channel")), at: .now)
                return
            }
            if descriptors[0].revents != 0 { control.wake.drain() }
            if paused || control.requests.stop { continue }
            if !scan(at: .now) { return }
        }
    }

    /// Reads the folder and reports what changed; `false` once the folder is gone (the last event).
    private mutating func scan(at now: Instant) -> Bool {
        events?.retry(at: now)
        let snapshot: FolderSnapshot
        do {
            snapshot = try FolderSnapshot.take(of: folder, in: root, recursive: recursive)
        } catch  where error.code == .notFound || error.code == .notADirectory {
            // Gone, or replaced by a file or a symlink (never followed).
            let removed = FolderEvent.folderRemoved(folder)
            events?.deliver(removed, at: now)
            return false
        } catch {
            events?.deliver(.failed(error), at: now)
            return true
        }
        let changes = PolledChanges(from: last, to: snapshot)
        if !changes.isEmpty { snapshots?.publish(snapshot) }
        if events != nil { report(changes, in: snapshot, at: now) }
        last = snapshot
        return true
    }

    /// Delivers the changes as events, and `ready` for files unchanged for the quiet period (and
    /// at least one scan after their last change) that nobody writes.
    private mutating func report(_ changes: PolledChanges, in snapshot: FolderSnapshot, at now: Instant) {
        for path in changes.removed {
            pending = pending.filter { !$0.key.isDescendant(of: path) }
            events?.deliver(.removed(path, isDirectory: last.items[path]?.type == .directory), at: now)
        }
        for path in changes.added {
            let isDirectory = snapshot.items[path]?.type == .directory
            events?.deliver(.added(path, isDirectory: isDirectory), at: now)
            if !isDirectory { pending[path] = now }
        }
        for path in changes.modified {
            if pending[path] == nil { events?.deliver(.modified(path), at: now) }
            pending[path] = now
        }
        for (path, changed) in pending.sorted(by: { $0.key < $1.key }) where now - changed >= max(quietPeriod, interval)
        {
            switch WriterProbe.probe(path, in: root, logger: logger) {
            case .noWriters:
                events?.deliver(.ready(path), at: now)
                pending[path] = nil
            case .gone:
                pending[path] = nil
            case .openForWriting:
                break
            }
        }
    }

    /// Whether `error` says the kernel has no inotify (`ENOSYS`), so polling is the way to watch.
    static func inotifyIsMissing(_ error: SandboxError) -> Bool {
        error.cause?.systemCall == "inotify_init1" && error.cause?.errno.rawValue == ENOSYS
    }

    /// Starts the polling thread.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when the thread cannot be made.
    func start() throws(SandboxError) {
        let box = PollingBox(self)
        let control = control
        let name = "sandbox-watch \(folder)"
        try OwnedThread.detached(name: name) {
            box.run()
            control.markExited()
        }
    }
}

/// Holds the reader for its thread, which releases it before reporting that it has exited.
///
/// `@unchecked Sendable`: after `start`, only the polling thread touches `reader`.
private final class PollingBox: @unchecked Sendable {
    private var reader: PollingReader?

    init(_ reader: PollingReader) { self.reader = reader }

    func run() {
        reader?.run()
        reader = nil
    }
}
