import Glibc
import Logging
import SandboxCore
import SystemPackage

/// The reader thread's loop: blocks in `poll(2)` on the inotify descriptor and the wake-up channel
/// (no timeout while nothing is pending, so an idle monitor costs no CPU and no wake-ups), drains
/// the queue to `EAGAIN`, feeds the records to the ``MonitorMachine`` and performs its actions.
struct MonitorReader: Sendable {
    var machine: MonitorMachine
    let inotify: InotifyInstance
    let root: ConfinedRoot
    let control: ReaderControl
    var events: EventDelivery?
    var snapshots: SnapshotDelivery?
    /// What arming left to report, performed first.
    private let initialActions: [MonitorMachine.Action]
    /// A read failure that ends the monitor.
    private var stopped = false

    /// Where what the reader handles on its own goes.
    let logger: Logger

    init(
        armed: ArmedMonitor, control: ReaderControl, events: EventDelivery?, snapshots: SnapshotDelivery?,
        logger: Logger
    ) {
        self.logger = logger
        machine = armed.machine
        initialActions = armed.initialActions
        inotify = armed.inotify
        root = armed.root
        self.control = control
        self.events = events
        self.snapshots = snapshots
    }

    private var consumerIsGone: Bool { events?.isTerminated == true || snapshots?.isTerminated == true }

    mutating func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: 64 * 1024, alignment: MemoryLayout<inotify_event>.alignment)
        defer {
            buffer.deallocate()
            events?.finish()
            snapshots?.finish()
        }
        perform(initialActions, at: .now)
        var paused = false
        while true {
            let requests = control.requests
            if requests.stop || stopped || machine.isFinished || consumerIsGone { return }
            if requests.pause != paused {
                paused = requests.pause
                control.acknowledge(paused: paused)
            }
            var descriptors = [pollfd(fd: control.wake.descriptor, events: Int16(POLLIN), revents: 0)]
            if !paused { descriptors.append(pollfd(fd: inotify.descriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout = paused ? -1 : pollTimeout(at: .now)
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 && errno != EINTR {
                fail(.systemCall("poll", errno: Errno(rawValue: errno), path: "inotify"))
                return
            }
            if descriptors[0].revents != 0 { control.wake.drain() }
            guard !paused else { continue }
            if descriptors[1].revents != 0 { drain(buffer) }
            let now = ContinuousClock.now
            perform(machine.tick(at: now), at: now)
            events?.retry(at: now)
            snapshots?.publishIfSettled(at: now)
        }
    }

    /// Milliseconds until the next deadline (rounded up), or -1 to sleep until woken.
    private func pollTimeout(at now: ContinuousClock.Instant) -> Int32 {
        let deadlines = [machine.nextDeadline, events?.retryAt, snapshots?.settler.deadline].compactMap { $0 }
        guard let deadline = deadlines.min() else { return -1 }
        let left = deadline - now
        guard left > .zero else { return 0 }
        return Int32(clamping: min(left.clampedMilliseconds, Int64(Int32.max)) + 1)
    }

    /// Reads until the kernel queue is empty.
    private mutating func drain(_ buffer: UnsafeMutableRawBufferPointer) {
        while true {
            switch inotify.read(into: buffer) {
            case .success(let records):
                guard !records.isEmpty else { return }
                let now = ContinuousClock.now
                for record in records {
                    snapshots?.noteActivity(at: now)
                    perform(machine.receive(record, at: now), at: now)
                    if machine.isFinished { return }
                }
            case .failure(let error):
                fail(error)
                return
            }
        }
    }

    private mutating func fail(_ error: SandboxError) {
        events?.deliver(.failed(error), at: .now)
        stopped = true
    }

    /// Performs actions in order; the results of I/O go back into the machine and their actions
    /// are queued behind.
    private mutating func perform(_ actions: [MonitorMachine.Action], at now: ContinuousClock.Instant) {
        var queue = actions
        var index = 0
        while index < queue.count {
            let action = queue[index]
            index += 1
            switch action {
            case .emit(let event):
                if event == .overflow { snapshots?.noteOverflow(at: now) }
                events?.deliver(event, at: now)
            case .watch(let key):
                queue += watch(key, at: now)
            case .unwatch(let watch):
                inotify.removeWatch(watch)
            case .rescan:
                queue += rescan(at: now)
            case .probe(let key):
                queue += machine.probed(key, result: WriterProbe.probe(key, in: root, logger: logger))
            case .finish:
                break
            }
        }
    }

    /// Watch first, then list: what lands in between is seen by one or the other (or both, and the
    /// machine drops the duplicate).
    private mutating func watch(_ key: ContainerPath, at now: ContinuousClock.Instant) -> [MonitorMachine.Action] {
        switch TreeArming.arm(key, root: root, inotify: inotify, reader: DirectoryReader()) {
        case .success(let directory):
            machine.watchAdded(directory.watch, for: key)
            return machine.scanned(directory: key, entries: directory.entries, at: now)
        case .failure(let failure):
            if let watch = failure.watch { machine.watchAdded(watch, for: key) }
            return machine.watchFailed(key, error: failure.error)
        }
    }

    /// Every directory watched and listed again; the folder itself gone ends the monitor.
    private mutating func rescan(at now: ContinuousClock.Instant) -> [MonitorMachine.Action] {
        let configuration = machine.configuration
        do throws(SandboxError) {
            let arming = try TreeArming.arm(
                configuration.folder, recursive: configuration.recursive, root: root, inotify: inotify)
            return machine.rescanned(arming, at: now)
        } catch  where MonitorMachine.isGone(error) {
            return machine.finish()
        } catch {
            return [.emit(.failed(error))]
        }
    }
}
