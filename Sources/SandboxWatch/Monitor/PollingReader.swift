import Foundation
import Glibc
import SystemPackage

/// The fallback backend of ``FolderMonitor``: reads a ``FolderSnapshot`` every `interval` and reports
/// the differences, for kernels without inotify (`inotify_init1` fails with `ENOSYS`) or when
/// ``FolderMonitor/Options/backend`` asks for it.
///
/// What it cannot know: renames come out as a removal and an addition (nothing pairs them), changes
/// undone within one interval are not seen, and there is no overflow. A file is ``FolderEvent/ready(_:)``
/// once its size and modification date stayed the same for the quiet period (at least one interval)
/// and no process has it open for writing (the same lease probe as the inotify backend).
/// Its thread sleeps in `poll(2)` on the wake-up channel with the interval as timeout, so it wakes
/// once per interval even when nothing happens.
struct PollingReader: Sendable {
    typealias Instant = ContinuousClock.Instant

    let folder: ContainerPath
    let root: ConfinedRoot
    let recursive: Bool
    let interval: Duration
    let quietPeriod: Duration
    let opener: DirectoryOpener
    let control: ReaderControl
    var events: EventDelivery
    private var last: FolderSnapshot
    /// Files written since they were last ready, with when they last changed.
    private var pending: [ContainerPath: Instant] = [:]

    init(folder: ContainerPath, root: ConfinedRoot, options: FolderMonitor.Options, interval: Duration, control: ReaderControl, events: EventDelivery) throws(SandboxError) {
        guard !folder.components.contains("..") else {
            throw SandboxError(.invalidPath, "'\(folder)' contains '..'; give the folder's own path to watch it.", path: folder.description)
        }
        self.folder = folder
        self.root = root
        self.recursive = options.recursive
        self.interval = max(interval, .milliseconds(1))
        self.quietPeriod = options.quietPeriod
        self.opener = try DirectoryOpener(root: root)
        self.control = control
        self.events = events
        // The baseline: what is there now is not reported (as with the inotify backend's arming).
        last = try FolderSnapshot.take(of: folder, in: root, recursive: options.recursive)
    }

    mutating func run() {
        defer { events.finish() }
        var paused = false
        while true {
            let requests = control.requests
            if requests.stop || events.isTerminated { return }
            if requests.pause != paused {
                paused = requests.pause
                control.acknowledge(paused: paused)
            }
            var descriptors = [pollfd(fd: control.wake.descriptor, events: Int16(POLLIN), revents: 0)]
            let timeout = paused ? -1 : Self.milliseconds(interval)
            if poll(&descriptors, 1, timeout) < 0 && errno != EINTR {
                events.deliver(.failed(.watch("poll", errno: errno, path: "wake-up channel")), at: .now)
                return
            }
            if descriptors[0].revents != 0 { control.wake.drain() }
            if paused || control.requests.stop { continue }
            if !scan(at: .now) { return }
        }
    }

    /// Reads the folder and reports what changed; `false` once the folder is gone (the last event).
    private mutating func scan(at now: Instant) -> Bool {
        events.retry(at: now)
        let snapshot: FolderSnapshot
        do {
            snapshot = try FolderSnapshot.take(of: folder, in: root, recursive: recursive)
        } catch where error.code == .notFound || error.code == .notADirectory {
            events.deliver(.folderRemoved(folder), at: now)
            return false
        } catch {
            events.deliver(.failed(error), at: now)
            return true
        }
        let difference = snapshot.difference(from: last)
        for path in difference.removed {
            events.deliver(.removed(path, isDirectory: last.items[path]?.type == .directory), at: now)
            pending[path] = nil
        }
        for path in difference.added {
            let isDirectory = snapshot.items[path]?.type == .directory
            events.deliver(.added(path, isDirectory: isDirectory), at: now)
            if !isDirectory { pending[path] = now }
        }
        for path in difference.modified {
            if pending[path] == nil { events.deliver(.modified(path), at: now) }
            pending[path] = now
        }
        last = snapshot
        // Ready: unchanged for the quiet period (and at least one scan after the last change) and
        // nobody writing.
        for (path, changed) in pending where now - changed >= max(quietPeriod, interval) {
            switch WriterProbe.probe(path.components, opener: opener) {
            case .noWriters:
                events.deliver(.ready(path), at: now)
                pending[path] = nil
            case .gone:
                pending[path] = nil
            case .openForWriting:
                break
            }
        }
        return true
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Whether `error` says the kernel has no inotify (`ENOSYS`), so polling is the way to watch.
    static func inotifyIsMissing(_ error: SandboxError) -> Bool {
        error.cause?.systemCall == "inotify_init1" && error.cause?.errno.rawValue == ENOSYS
    }

    /// Starts the polling thread.
    func start() -> Void {
        let box = PollingBox(self)
        let control = control
        let name = "sandbox-watch \(folder)"
        let thread = Thread {
            nameThread(name)
            box.run()
            control.markExited()
        }
        thread.start()
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

private func nameThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
