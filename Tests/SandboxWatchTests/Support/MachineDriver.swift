@testable import SandboxWatch

/// Builds and drives a ``MonitorMachine`` with hand-made records and instants: no I/O, no clock.
/// The state machine's test suites adopt it.
protocol MachineDriving {
    /// The instant the test's times count from.
    var t0: ContinuousClock.Instant { get }
}

extension MachineDriving {
    typealias Mask = InotifyEvent.Mask

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    /// A name from text (tests write valid names).
    func name(_ text: String) -> FileName { FileName(uncheckedBytes: text.utf8) }

    /// A machine for `Documents` (watch 1) that knows `files`.
    func makeMachine(recursive: Bool = true, files: [String] = [], directories: [String: Int32] = [:]) -> MonitorMachine
    {
        var machine = MonitorMachine(
            configuration: .init(
                folder: "Documents", recursive: recursive, quietPeriod: .milliseconds(100),
                pairingWindow: .milliseconds(50), tracksReadiness: true
            ))
        var arming = MonitorMachine.Arming()
        let entries =
            files.map { MonitorMachine.ListedEntry(name: name($0), isDirectory: false) }
            + directories.keys.sorted().map { MonitorMachine.ListedEntry(name: name($0), isDirectory: true) }
        arming.directories.append(.init(key: "Documents", watch: 1, entries: entries))
        for (directory, watch) in directories.sorted(by: { $0.key < $1.key }) {
            arming.directories.append(
                .init(key: ContainerPath(stringLiteral: "Documents/" + directory), watch: watch, entries: []))
        }
        let failures = machine.recordBaseline(arming)
        precondition(failures.isEmpty, "the driver's baseline has no folders that failed to be watched")
        return machine
    }

    func record(_ mask: Mask, _ text: String?, cookie: UInt32 = 0, watch: Int32 = 1) -> InotifyEvent {
        InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: text.map(name))
    }

    func entry(_ text: String, directory: Bool = false) -> MonitorMachine.ListedEntry {
        .init(name: name(text), isDirectory: directory)
    }

    func events(_ actions: [MonitorMachine.Action]) -> [FolderEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    /// Ticks at `time` and answers every probe with `result`; returns the events.
    func tick(
        _ machine: inout MonitorMachine, _ time: Int, probe result: MonitorMachine.ProbeResult = .noWriters
    ) -> [FolderEvent] {
        var emitted: [FolderEvent] = []
        for action in machine.tick(at: at(time)) {
            switch action {
            case .emit(let event): emitted.append(event)
            case .probe(let key): emitted += events(machine.probed(key, result: result))
            default: break
            }
        }
        return emitted
    }
}

extension ContainerPath: ExpressibleByStringLiteral {
    /// Test paths are literals known to be valid.
    public init(stringLiteral value: String) {
        do {
            self = try ContainerPath(value)
        } catch {
            preconditionFailure("invalid test path \(value): \(error)")
        }
    }
}
