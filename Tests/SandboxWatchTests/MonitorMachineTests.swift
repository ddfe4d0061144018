import Glibc
import Testing

@testable import SandboxWatch

/// The monitor's logic, driven by hand-made inotify records and instants: no I/O, no clock.
@Suite("Monitor state machine")
struct MonitorMachineTests {
    typealias Mask = InotifyEvent.Mask
    let t0 = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    func path(_ string: String) -> ContainerPath { ContainerPath(stringLiteral: string) }

    func makeMachine(recursive: Bool = true, files: [String] = []) -> MonitorMachine {
        var machine = MonitorMachine(configuration: .init(
            folder: path("Documents"), recursive: recursive, quietPeriod: .milliseconds(100),
            pairingWindow: .milliseconds(50), tracksReadiness: true
        ))
        machine.watchAdded(1, for: ["Documents"])
        _ = machine.recordBaseline(directory: ["Documents"], entries: files.map { .init(name: $0, isDirectory: false) })
        return machine
    }

    func record(_ mask: Mask, _ name: String?, cookie: UInt32 = 0, watch: Int32 = 1) -> InotifyEvent {
        InotifyEvent(watch: watch, mask: mask, cookie: cookie, name: name)
    }

    func events(_ actions: [MonitorMachine.Action]) -> [FolderEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    /// Ticks at `time` and answers every probe with `result`; returns the events.
    func tick(_ machine: inout MonitorMachine, _ time: Int, probe result: MonitorMachine.ProbeResult = .noWriters) -> [FolderEvent] {
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

    @Test("a file written and closed is added, then ready after the quiet period")
    func readyAfterCloseWrite() {
        var machine = makeMachine()
        #expect(events(machine.receive(record(.create, "a.txt"), at: at(0))) == [.added(path("Documents/a.txt"), isDirectory: false)])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(1))).isEmpty)
        #expect(events(machine.receive(record(.closeWrite, "a.txt"), at: at(2))).isEmpty)
        #expect(machine.nextDeadline == at(102))
        #expect(tick(&machine, 101).isEmpty)
        #expect(tick(&machine, 102) == [.ready(path("Documents/a.txt"))])
        #expect(machine.nextDeadline == nil)
        #expect(tick(&machine, 10_000).isEmpty)
    }

    @Test("a writer that reopens the file per chunk gives one ready")
    func reopenPerChunk() {
        var machine = makeMachine()
        var all = events(machine.receive(record(.create, "log"), at: at(0)))
        for chunk in 0..<3 {
            all += events(machine.receive(record(.modify, "log"), at: at(chunk * 60)))
            all += events(machine.receive(record(.closeWrite, "log"), at: at(chunk * 60 + 10)))
            all += tick(&machine, chunk * 60 + 50)
        }
        all += tick(&machine, 229)
        #expect(all == [.added(path("Documents/log"), isDirectory: false)])
        #expect(tick(&machine, 230) == [.ready(path("Documents/log"))])
    }

    @Test("a writer that pauses with the file open gets no ready until it closes")
    func pausedWriter() {
        var machine = makeMachine()
        _ = machine.receive(record(.create, "big"), at: at(0))
        _ = machine.receive(record(.modify, "big"), at: at(1))
        #expect(machine.nextDeadline == nil)  // writing: nothing to wait for but the close
        #expect(tick(&machine, 2_000).isEmpty)
        _ = machine.receive(record(.modify, "big"), at: at(2_001))
        _ = machine.receive(record(.closeWrite, "big"), at: at(2_002))
        #expect(tick(&machine, 2_102) == [.ready(path("Documents/big"))])
    }

    @Test("a file created and held open before its first write is not ready: the probe sees the writer")
    func createdThenPaused() {
        var machine = makeMachine()
        _ = machine.receive(record(.create, "slow"), at: at(0))
        #expect(tick(&machine, 100, probe: .openForWriting).isEmpty)
        #expect(machine.nextDeadline == nil)
        _ = machine.receive(record(.modify, "slow"), at: at(900))
        _ = machine.receive(record(.closeWrite, "slow"), at: at(901))
        #expect(tick(&machine, 1_001) == [.ready(path("Documents/slow"))])
    }

    @Test("an existing file rewritten in place is modified once per write session")
    func modifiedOnce() {
        var machine = makeMachine(files: ["a.txt"])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(0))) == [.modified(path("Documents/a.txt"))])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(1))).isEmpty)
        #expect(events(machine.receive(record(.attributes, "a.txt"), at: at(2))).isEmpty)
        _ = machine.receive(record(.closeWrite, "a.txt"), at: at(3))
        #expect(tick(&machine, 103) == [.ready(path("Documents/a.txt"))])
        #expect(events(machine.receive(record(.attributes, "a.txt"), at: at(200))) == [.modified(path("Documents/a.txt"))])
    }

    @Test("an atomic save (temporary file renamed into place) gives exactly one ready, for the final name")
    func atomicSave() {
        var machine = makeMachine()
        var all: [FolderEvent] = []
        all += events(machine.receive(record(.create, ".a.txt.tmp"), at: at(0)))
        all += events(machine.receive(record(.modify, ".a.txt.tmp"), at: at(1)))
        all += events(machine.receive(record(.closeWrite, ".a.txt.tmp"), at: at(2)))
        all += events(machine.receive(record(.movedFrom, ".a.txt.tmp", cookie: 7), at: at(3)))
        all += events(machine.receive(record(.movedTo, "a.txt", cookie: 7), at: at(3)))
        all += tick(&machine, 1_000)
        #expect(all == [
            .added(path("Documents/.a.txt.tmp"), isDirectory: false),
            .renamed(from: path("Documents/.a.txt.tmp"), to: path("Documents/a.txt"), isDirectory: false),
            .ready(path("Documents/a.txt")),
        ])
    }

    @Test("rename halves pair by cookie, even with other records between them")
    func renamePairing() {
        var machine = makeMachine(files: ["a", "b"])
        #expect(events(machine.receive(record(.movedFrom, "a", cookie: 9), at: at(0))).isEmpty)
        #expect(events(machine.receive(record(.modify, "b"), at: at(1))) == [.modified(path("Documents/b"))])
        #expect(events(machine.receive(record(.movedTo, "c", cookie: 9), at: at(2)))
            == [.renamed(from: path("Documents/a"), to: path("Documents/c"), isDirectory: false)])
        #expect(machine.model.contains(["Documents", "c"]) && !machine.model.contains(["Documents", "a"]))
    }

    @Test("a move out is a removal once the pairing window passes; a move in is an addition")
    func unpairedMoves() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.movedFrom, "a", cookie: 3), at: at(0))
        #expect(tick(&machine, 49).isEmpty)
        #expect(tick(&machine, 50) == [.removed(path("Documents/a"), isDirectory: false)])
        #expect(events(machine.receive(record(.movedTo, "in.pdf", cookie: 4), at: at(60))) == [.added(path("Documents/in.pdf"), isDirectory: false)])
        #expect(tick(&machine, 160) == [.ready(path("Documents/in.pdf"))])
    }

    @Test("a name moved out and created again is reported in order: removed, then added")
    func moveOutThenCreate() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.movedFrom, "a", cookie: 3), at: at(0))
        #expect(events(machine.receive(record(.create, "a"), at: at(1))) == [
            .removed(path("Documents/a"), isDirectory: false), .added(path("Documents/a"), isDirectory: false),
        ])
    }

    @Test("a new folder is watched, then listed; what the listing finds is added, without duplicates")
    func newFolderWatchedThenScanned() {
        var machine = makeMachine()
        let created = machine.receive(record([.create, .isDirectory], "n1"), at: at(0))
        // Watched before reported: a consumer reacting to `added` finds the watch in place.
        #expect(created == [.watch(["Documents", "n1"]), .emit(.added(path("Documents/n1"), isDirectory: true))])
        machine.watchAdded(2, for: ["Documents", "n1"])
        let scanned = machine.scanned(directory: ["Documents", "n1"], entries: [.init(name: "n2", isDirectory: true), .init(name: "f", isDirectory: false)], at: at(1))
        #expect(scanned == [
            .watch(["Documents", "n1", "n2"]), .emit(.added(path("Documents/n1/n2"), isDirectory: true)),
            .emit(.added(path("Documents/n1/f"), isDirectory: false)),
        ])
        // The file's own record arrives after the listing: no second `added`.
        #expect(events(machine.receive(record(.create, "f", watch: 2), at: at(2))).isEmpty)
        #expect(tick(&machine, 200) == [.ready(path("Documents/n1/f"))])
    }

    @Test("a renamed folder keeps its watch under the new name")
    func folderRename() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "d"), at: at(0))
        machine.watchAdded(2, for: ["Documents", "d"])
        _ = machine.scanned(directory: ["Documents", "d"], entries: [], at: at(0))
        _ = machine.receive(record([.movedFrom, .isDirectory], "d", cookie: 5), at: at(1))
        #expect(events(machine.receive(record([.movedTo, .isDirectory], "e", cookie: 5), at: at(1)))
            == [.renamed(from: path("Documents/d"), to: path("Documents/e"), isDirectory: true)])
        #expect(events(machine.receive(record(.create, "x", watch: 2), at: at(2))) == [.added(path("Documents/e/x"), isDirectory: false)])
    }

    @Test("a folder moved out is removed and its watches are dropped")
    func folderMovedOut() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "d"), at: at(0))
        machine.watchAdded(2, for: ["Documents", "d"])
        _ = machine.receive(record([.movedFrom, .isDirectory], "d", cookie: 5), at: at(1))
        let actions = machine.tick(at: at(100))
        #expect(actions == [.unwatch(2), .emit(.removed(path("Documents/d"), isDirectory: true))])
        #expect(machine.receive(record(.create, "late", watch: 2), at: at(101)).isEmpty)
    }

    @Test("an overflow is reported and answered by a rescan whose differences are reported")
    func overflowRescan() {
        var machine = makeMachine(files: ["kept", "gone"])
        #expect(machine.receive(record(.queueOverflow, nil, watch: -1), at: at(0)) == [.emit(.overflow), .rescan])
        let actions = machine.rescanned(entries: [
            (["Documents", "kept"], false), (["Documents", "new"], false), (["Documents", "dir"], true), (["Documents", "dir", "f"], false),
        ], at: at(1))
        #expect(actions == [
            .emit(.removed(path("Documents/gone"), isDirectory: false)),
            .emit(.added(path("Documents/new"), isDirectory: false)),
            .watch(["Documents", "dir"]), .emit(.added(path("Documents/dir"), isDirectory: true)),
            .emit(.added(path("Documents/dir/f"), isDirectory: false)),
        ])
        #expect(machine.model.count == 4)
    }

    @Test("the folder itself deleted: folder-removed, then nothing")
    func folderDeleted() {
        var machine = makeMachine(files: ["a"])
        #expect(machine.receive(record(.deleteSelf, nil), at: at(0)) == [.emit(.folderRemoved(path("Documents"))), .finish])
        #expect(machine.isFinished)
        #expect(machine.receive(record(.ignored, nil), at: at(1)).isEmpty)
        #expect(machine.tick(at: at(1_000)).isEmpty)
    }

    @Test("a non-recursive monitor reports subfolders but does not watch them")
    func nonRecursive() {
        var machine = makeMachine(recursive: false)
        #expect(machine.receive(record([.create, .isDirectory], "d"), at: at(0)) == [.emit(.added(path("Documents/d"), isDirectory: true))])
    }

    @Test("a subfolder that vanished before its watch is fine; a watch limit is reported")
    func watchFailures() {
        var machine = makeMachine()
        #expect(machine.watchFailed(["Documents", "d"], error: SandboxError(.notFound, "gone")).isEmpty)
        let limit = SandboxError.inotifyWatch(errno: ENOSPC, path: "Documents/d")
        #expect(machine.watchFailed(["Documents", "d"], error: limit) == [.emit(.failed(limit))])
    }

    @Test("without readiness tracking nothing is probed")
    func noReadiness() {
        var machine = MonitorMachine(configuration: .init(
            folder: path("Documents"), recursive: true, quietPeriod: .zero, pairingWindow: .milliseconds(50), tracksReadiness: false
        ))
        machine.watchAdded(1, for: ["Documents"])
        _ = machine.receive(record(.create, "a"), at: at(0))
        _ = machine.receive(record(.closeWrite, "a"), at: at(0))
        #expect(machine.tick(at: at(1)).isEmpty)
        #expect(machine.nextDeadline == nil)
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
