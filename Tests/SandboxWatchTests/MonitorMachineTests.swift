import Glibc
import Testing

@testable import SandboxWatch

/// The monitor's logic, driven by hand-made inotify records and instants: no I/O, no clock.
@Suite("Monitor state machine")
struct MonitorMachineTests: MachineDriving {
    let t0 = ContinuousClock.now

    @Test("a file written and closed is added, then ready after the quiet period")
    func readyAfterCloseWrite() {
        var machine = makeMachine()
        #expect(
            events(machine.receive(record(.create, "a.txt"), at: at(0))) == [
                .added("Documents/a.txt", isDirectory: false)
            ])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(1))).isEmpty)
        #expect(events(machine.receive(record(.closeWrite, "a.txt"), at: at(2))).isEmpty)
        #expect(machine.nextDeadline == at(102))
        #expect(tick(&machine, 101).isEmpty)
        #expect(tick(&machine, 102) == [.ready("Documents/a.txt")])
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
        #expect(all == [.added("Documents/log", isDirectory: false)])
        #expect(tick(&machine, 230) == [.ready("Documents/log")])
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
        #expect(tick(&machine, 2_102) == [.ready("Documents/big")])
    }

    @Test("a file created and held open before its first write is not ready: the probe sees the writer")
    func createdThenPaused() {
        var machine = makeMachine()
        _ = machine.receive(record(.create, "slow"), at: at(0))
        #expect(tick(&machine, 100, probe: .openForWriting).isEmpty)
        #expect(machine.nextDeadline == nil)
        _ = machine.receive(record(.modify, "slow"), at: at(900))
        _ = machine.receive(record(.closeWrite, "slow"), at: at(901))
        #expect(tick(&machine, 1_001) == [.ready("Documents/slow")])
    }

    @Test("an existing file rewritten in place is modified once per write session")
    func modifiedOnce() {
        var machine = makeMachine(files: ["a.txt"])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(0))) == [.modified("Documents/a.txt")])
        #expect(events(machine.receive(record(.modify, "a.txt"), at: at(1))).isEmpty)
        #expect(events(machine.receive(record(.attributes, "a.txt"), at: at(2))).isEmpty)
        _ = machine.receive(record(.closeWrite, "a.txt"), at: at(3))
        #expect(tick(&machine, 103) == [.ready("Documents/a.txt")])
        #expect(
            events(machine.receive(record(.attributes, "a.txt"), at: at(200))) == [.modified("Documents/a.txt")])
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
        #expect(
            all == [
                .added("Documents/.a.txt.tmp", isDirectory: false),
                .renamed(from: "Documents/.a.txt.tmp", to: "Documents/a.txt", isDirectory: false),
                .ready("Documents/a.txt"),
            ])
    }

    @Test("rename halves pair by cookie, even with other records between them")
    func renamePairing() {
        var machine = makeMachine(files: ["a", "b"])
        #expect(events(machine.receive(record(.movedFrom, "a", cookie: 9), at: at(0))).isEmpty)
        #expect(events(machine.receive(record(.modify, "b"), at: at(1))) == [.modified("Documents/b")])
        #expect(
            events(machine.receive(record(.movedTo, "c", cookie: 9), at: at(2)))
                == [.renamed(from: "Documents/a", to: "Documents/c", isDirectory: false)])
        #expect(machine.model.contains("Documents/c") && !machine.model.contains("Documents/a"))
    }

    @Test("a move out is a removal once the pairing window passes; a move in is an addition")
    func unpairedMoves() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.movedFrom, "a", cookie: 3), at: at(0))
        #expect(tick(&machine, 49).isEmpty)
        #expect(tick(&machine, 50) == [.removed("Documents/a", isDirectory: false)])
        #expect(
            events(machine.receive(record(.movedTo, "in.pdf", cookie: 4), at: at(60))) == [
                .added("Documents/in.pdf", isDirectory: false)
            ])
        #expect(tick(&machine, 160) == [.ready("Documents/in.pdf")])
    }

    @Test("a name moved out and created again is reported in order: removed, then added")
    func moveOutThenCreate() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.movedFrom, "a", cookie: 3), at: at(0))
        #expect(
            events(machine.receive(record(.create, "a"), at: at(1))) == [
                .removed("Documents/a", isDirectory: false), .added("Documents/a", isDirectory: false),
            ])
    }

    @Test("a new folder is watched, then listed; what the listing finds is added, without duplicates")
    func newFolderWatchedThenScanned() {
        var machine = makeMachine()
        let created = machine.receive(record([.create, .isDirectory], "n1"), at: at(0))
        // Watched before reported: a consumer reacting to `added` finds the watch in place.
        #expect(created == [.watch("Documents/n1"), .emit(.added("Documents/n1", isDirectory: true))])
        machine.watchAdded(2, for: "Documents/n1")
        let scanned = machine.scanned(
            directory: "Documents/n1", entries: [entry("n2", directory: true), entry("f")], at: at(1))
        #expect(
            scanned == [
                .watch("Documents/n1/n2"), .emit(.added("Documents/n1/n2", isDirectory: true)),
                .emit(.added("Documents/n1/f", isDirectory: false)),
            ])
        // The file's own record arrives after the listing: no second `added`.
        #expect(events(machine.receive(record(.create, "f", watch: 2), at: at(2))).isEmpty)
        #expect(tick(&machine, 200) == [.ready("Documents/n1/f")])
    }

    @Test("a renamed folder keeps its watch under the new name, and is watched and listed again there")
    func folderRename() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "d"), at: at(0))
        machine.watchAdded(2, for: "Documents/d")
        _ = machine.scanned(directory: "Documents/d", entries: [], at: at(0))
        _ = machine.receive(record([.movedFrom, .isDirectory], "d", cookie: 5), at: at(1))
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "e", cookie: 5), at: at(1)) == [
                .watch("Documents/e"),
                .emit(.renamed(from: "Documents/d", to: "Documents/e", isDirectory: true)),
            ])
        #expect(machine.watches[2] == "Documents/e")
        // The kernel gives the same descriptor for the same directory: nothing moves, nothing is new.
        machine.watchAdded(2, for: "Documents/e")
        #expect(machine.scanned(directory: "Documents/e", entries: [], at: at(2)).isEmpty)
        #expect(
            events(machine.receive(record(.create, "x", watch: 2), at: at(2))) == [
                .added("Documents/e/x", isDirectory: false)
            ])
    }

    @Test("a folder moved out is removed and its watches are dropped")
    func folderMovedOut() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "d"), at: at(0))
        machine.watchAdded(2, for: "Documents/d")
        _ = machine.receive(record([.movedFrom, .isDirectory], "d", cookie: 5), at: at(1))
        let actions = machine.tick(at: at(100))
        #expect(actions == [.unwatch(2), .emit(.removed("Documents/d", isDirectory: true))])
        #expect(machine.receive(record(.create, "late", watch: 2), at: at(101)).isEmpty)
    }

    @Test("an overflow is reported and answered by a rescan whose differences are reported")
    func overflowRescan() {
        var machine = makeMachine(files: ["kept", "gone"])
        #expect(machine.receive(record(.queueOverflow, nil, watch: -1), at: at(0)) == [.emit(.overflow), .rescan])
        var arming = MonitorMachine.Arming()
        arming.directories = [
            .init(
                key: "Documents", watch: 1,
                entries: [entry("kept"), entry("new"), entry("dir", directory: true)]),
            .init(key: "Documents/dir", watch: 2, entries: [entry("f")]),
        ]
        let actions = machine.rescanned(arming, at: at(1))
        // The rescan watched every directory already: no watch is asked for.
        #expect(
            actions == [
                .emit(.removed("Documents/gone", isDirectory: false)),
                .emit(.added("Documents/dir", isDirectory: true)),
                .emit(.added("Documents/new", isDirectory: false)),
                .emit(.added("Documents/dir/f", isDirectory: false)),
            ])
        #expect(machine.model.count == 4)
        #expect(machine.watches == [1: "Documents", 2: "Documents/dir"])
        #expect(
            events(machine.receive(record(.create, "g", watch: 2), at: at(2))) == [
                .added("Documents/dir/g", isDirectory: false)
            ])
    }

    @Test("the folder itself deleted: folder-removed, then nothing")
    func folderDeleted() {
        var machine = makeMachine(files: ["a"])
        #expect(
            machine.receive(record(.deleteSelf, nil), at: at(0)) == [.emit(.folderRemoved("Documents")), .finish])
        #expect(machine.isFinished)
        #expect(machine.receive(record(.ignored, nil), at: at(1)).isEmpty)
        #expect(machine.tick(at: at(1_000)).isEmpty)
    }

    @Test("a non-recursive monitor reports subfolders but does not watch them")
    func nonRecursive() {
        var machine = makeMachine(recursive: false)
        #expect(
            machine.receive(record([.create, .isDirectory], "d"), at: at(0)) == [
                .emit(.added("Documents/d", isDirectory: true))
            ])
    }

    @Test("a subfolder that vanished before its watch is fine; a watch limit is reported")
    func watchFailures() {
        var machine = makeMachine()
        #expect(machine.watchFailed("Documents/d", error: SandboxError(.notFound, "gone")).isEmpty)
        let limit = SandboxError.inotifyWatch(errno: ENOSPC, path: "Documents/d")
        #expect(machine.watchFailed("Documents/d", error: limit) == [.emit(.failed(limit))])
    }

    @Test("without readiness tracking nothing is probed")
    func noReadiness() {
        var machine = MonitorMachine(
            configuration: .init(
                folder: "Documents", recursive: true, quietPeriod: .zero, pairingWindow: .milliseconds(50),
                tracksReadiness: false
            ))
        machine.watchAdded(1, for: "Documents")
        _ = machine.receive(record(.create, "a"), at: at(0))
        _ = machine.receive(record(.closeWrite, "a"), at: at(0))
        #expect(machine.tick(at: at(1)).isEmpty)
        #expect(machine.nextDeadline == nil)
    }
}
