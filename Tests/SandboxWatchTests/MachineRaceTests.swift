import Glibc
import Testing

@testable import SandboxWatch

/// Folders that change faster than the monitor can watch them, and lost events (issue 17, items
/// 15 and 16), on the state machine alone.
@Suite("Monitor state machine: racing folders and lost events")
struct MachineRaceTests: MachineDriving {
    let t0 = ContinuousClock.now
    let gone = SandboxError(.notFound, "gone")

    // MARK: - Renamed before watched (item 15)

    @Test("a folder created and renamed before its watch is added is watched and listed under its new name")
    func stagingFolderRenamedIntoPlace() {
        var machine = makeMachine()
        #expect(
            machine.receive(record([.create, .isDirectory], "staging"), at: at(0)) == [
                .watch("Documents/staging"), .emit(.added("Documents/staging", isDirectory: true)),
            ])
        // By the time the reader opens it, `staging` is `final` already.
        #expect(machine.watchFailed("Documents/staging", error: gone).isEmpty)
        #expect(machine.receive(record([.movedFrom, .isDirectory], "staging", cookie: 7), at: at(1)).isEmpty)
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "final", cookie: 7), at: at(1)) == [
                .watch("Documents/final"),
                .emit(.renamed(from: "Documents/staging", to: "Documents/final", isDirectory: true)),
            ])
        machine.watchAdded(2, for: "Documents/final")
        #expect(
            machine.scanned(
                directory: "Documents/final", entries: [entry("a"), entry("sub", directory: true)],
                at: at(2)) == [
                    .emit(.added("Documents/final/a", isDirectory: false)),
                    .watch("Documents/final/sub"), .emit(.added("Documents/final/sub", isDirectory: true)),
                ])
        machine.watchAdded(3, for: "Documents/final/sub")
        #expect(
            events(machine.scanned(directory: "Documents/final/sub", entries: [entry("b")], at: at(2))) == [
                .added("Documents/final/sub/b", isDirectory: false)
            ])
        // Watched from now on.
        #expect(
            events(machine.receive(record(.create, "later", watch: 2), at: at(3))) == [
                .added("Documents/final/later", isDirectory: false)
            ])
        #expect(
            events(machine.receive(record(.create, "later", watch: 3), at: at(3))) == [
                .added("Documents/final/sub/later", isDirectory: false)
            ])
        #expect(
            tick(&machine, 200) == [
                .ready("Documents/final/a"), .ready("Documents/final/sub/b"), .ready("Documents/final/later"),
                .ready("Documents/final/sub/later"),
            ])
    }

    @Test("subfolders whose watch failed under the old name are watched under the new one")
    func unwatchedSubfoldersOfARenamedFolder() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "staging"), at: at(0))
        machine.watchAdded(2, for: "Documents/staging")
        #expect(
            machine.scanned(directory: "Documents/staging", entries: [entry("sub", directory: true)], at: at(0))
                == [
                    .watch("Documents/staging/sub"), .emit(.added("Documents/staging/sub", isDirectory: true)),
                ])
        #expect(machine.watchFailed("Documents/staging/sub", error: gone).isEmpty)
        _ = machine.receive(record([.movedFrom, .isDirectory], "staging", cookie: 8), at: at(1))
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "final", cookie: 8), at: at(1)) == [
                .watch("Documents/final"), .watch("Documents/final/sub"),
                .emit(.renamed(from: "Documents/staging", to: "Documents/final", isDirectory: true)),
            ])
    }

    @Test("a name reused at once (staging renamed, then created again) ends with each folder under its own name")
    func stagingNameReused() {
        var machine = makeMachine()
        _ = machine.receive(record([.create, .isDirectory], "staging"), at: at(0))
        // The reader opened `staging` after the rename and the new mkdir: it watched the new folder.
        machine.watchAdded(3, for: "Documents/staging")
        _ = machine.receive(record([.movedFrom, .isDirectory], "staging", cookie: 9), at: at(1))
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "final", cookie: 9), at: at(1)).first
                == .watch("Documents/final"))
        machine.watchAdded(4, for: "Documents/final")  // the renamed folder's own watch
        #expect(
            machine.receive(record([.create, .isDirectory], "staging"), at: at(2)).first == .watch("Documents/staging"))
        machine.watchAdded(3, for: "Documents/staging")
        #expect(machine.watches == [1: "Documents", 3: "Documents/staging", 4: "Documents/final"])
        #expect(
            events(machine.receive(record(.create, "x", watch: 4), at: at(3))) == [
                .added("Documents/final/x", isDirectory: false)
            ])
        #expect(
            events(machine.receive(record(.create, "y", watch: 3), at: at(3))) == [
                .added("Documents/staging/y", isDirectory: false)
            ])
    }

    @Test("a folder moved in from outside is watched and its contents reported as added")
    func folderMovedIn() {
        var machine = makeMachine()
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "in", cookie: 4), at: at(0)) == [
                .watch("Documents/in"), .emit(.added("Documents/in", isDirectory: true)),
            ])
        machine.watchAdded(2, for: "Documents/in")
        #expect(
            events(
                machine.scanned(
                    directory: "Documents/in", entries: [entry("a"), entry("d", directory: true)],
                    at: at(1))) == [
                    .added("Documents/in/a", isDirectory: false), .added("Documents/in/d", isDirectory: true),
                ])
    }

    @Test("a folder tree moved out: every watch beneath it is removed")
    func folderTreeMovedOut() {
        var machine = makeMachine(directories: ["d": 2])
        _ = machine.receive(record([.create, .isDirectory], "s", watch: 2), at: at(0))
        machine.watchAdded(3, for: "Documents/d/s")
        _ = machine.receive(record([.movedFrom, .isDirectory], "d", cookie: 5), at: at(1))
        #expect(
            machine.tick(at: at(60)) == [.unwatch(2), .unwatch(3), .emit(.removed("Documents/d", isDirectory: true))])
        #expect(machine.watches == [1: "Documents"])
        #expect(machine.model.count == 0)
    }

    @Test("a folder renamed over another: the replaced folder's watches are removed")
    func folderRenamedOverAnother() {
        var machine = makeMachine(directories: ["a": 2, "b": 3])
        _ = machine.receive(record([.movedFrom, .isDirectory], "a", cookie: 6), at: at(0))
        #expect(
            machine.receive(record([.movedTo, .isDirectory], "b", cookie: 6), at: at(0)) == [
                .unwatch(3), .watch("Documents/b"),
                .emit(.renamed(from: "Documents/a", to: "Documents/b", isDirectory: true)),
            ])
        #expect(machine.watches == [1: "Documents", 2: "Documents/b"])
    }

    // MARK: - Lost events (item 16)

    /// The arming a rescan reports: `Documents` (watch 1) with `entries`, then `subfolders`.
    func arming(
        _ entries: [MonitorMachine.ListedEntry], rootWatch: Int32 = 1,
        _ subfolders: [(String, Int32, [MonitorMachine.ListedEntry])] = []
    ) -> MonitorMachine.Arming {
        var arming = MonitorMachine.Arming()
        arming.directories.append(.init(key: "Documents", watch: rootWatch, entries: entries))
        for (name, watch, contents) in subfolders {
            arming.directories.append(
                .init(key: ContainerPath(stringLiteral: "Documents/" + name), watch: watch, entries: contents))
        }
        return arming
    }

    @Test("a file whose close was lost in an overflow is ready after the rescan, and its later writes are seen")
    func closeLostInOverflow() {
        var machine = makeMachine()
        _ = machine.receive(record(.create, "big"), at: at(0))
        _ = machine.receive(record(.modify, "big"), at: at(1))
        #expect(machine.nextDeadline == nil)  // being written: waiting for its close
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(2))
        #expect(machine.rescanned(arming([entry("big")]), at: at(3)).isEmpty)
        #expect(machine.nextDeadline == at(103))
        #expect(tick(&machine, 103) == [.ready("Documents/big")])
        #expect(events(machine.receive(record(.modify, "big"), at: at(200))) == [.modified("Documents/big")])
    }

    @Test("a file still open for writing after the rescan waits for its close")
    func writerStillOpenAfterOverflow() {
        var machine = makeMachine()
        _ = machine.receive(record(.create, "big"), at: at(0))
        _ = machine.receive(record(.modify, "big"), at: at(1))
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(2))
        _ = machine.rescanned(arming([entry("big")]), at: at(3))
        #expect(tick(&machine, 103, probe: .openForWriting).isEmpty)
        _ = machine.receive(record(.closeWrite, "big"), at: at(500))
        #expect(tick(&machine, 600) == [.ready("Documents/big")])
    }

    @Test("a folder deleted and re-created during an overflow is re-armed: its new watch is used, the old one removed")
    func folderRecreatedInOverflow() {
        var machine = makeMachine(directories: ["d": 2])
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(0))
        let actions = machine.rescanned(arming([entry("d", directory: true)], [("d", 5, [])]), at: at(1))
        #expect(actions == [.unwatch(2)])
        #expect(machine.watches == [1: "Documents", 5: "Documents/d"])
        #expect(
            events(machine.receive(record(.create, "x", watch: 5), at: at(2))) == [
                .added("Documents/d/x", isDirectory: false)
            ])
        #expect(machine.receive(record(.create, "stale", watch: 2), at: at(2)).isEmpty)
    }

    @Test("the watched folder itself deleted and re-created during an overflow is re-armed, not ended")
    func watchedFolderRecreatedInOverflow() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(0))
        let actions = machine.rescanned(arming([entry("b")], rootWatch: 9), at: at(1))
        #expect(
            actions == [
                .unwatch(1), .emit(.removed("Documents/a", isDirectory: false)),
                .emit(.added("Documents/b", isDirectory: false)),
            ])
        #expect(!machine.isFinished)
        // The old folder's last records (if they come) are ignored; the new one is watched.
        #expect(machine.receive(record(.ignored, nil, watch: 1), at: at(2)).isEmpty)
        #expect(
            events(machine.receive(record(.create, "c", watch: 9), at: at(2))) == [
                .added("Documents/c", isDirectory: false)
            ])
    }

    @Test("a folder renamed during an overflow: removed and added, its watch kept under the new name")
    func folderRenamedInOverflow() {
        var machine = makeMachine(directories: ["d": 2])
        _ = machine.receive(record(.create, "f", watch: 2), at: at(0))
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(1))
        let actions = machine.rescanned(
            arming([entry("e", directory: true)], [("e", 2, [entry("f")])]), at: at(2))
        #expect(
            actions == [
                .emit(.removed("Documents/d", isDirectory: true)), .emit(.added("Documents/e", isDirectory: true)),
                .emit(.added("Documents/e/f", isDirectory: false)),
            ])
        #expect(machine.watches == [1: "Documents", 2: "Documents/e"])
        #expect(machine.writes.keys.sorted() == ["Documents/e/f"])
    }

    @Test("moves waiting for their partner are dropped by the rescan, and their late halves change nothing")
    func pendingMovesAfterOverflow() {
        var machine = makeMachine(files: ["a"])
        _ = machine.receive(record(.movedFrom, "a", cookie: 3), at: at(0))
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(1))
        #expect(
            events(machine.rescanned(arming([entry("b")]), at: at(2))) == [
                .removed("Documents/a", isDirectory: false), .added("Documents/b", isDirectory: false),
            ])
        #expect(events(machine.receive(record(.movedTo, "b", cookie: 3), at: at(3))).isEmpty)
        #expect(machine.tick(at: at(1_000)).allSatisfy { if case .emit(.removed) = $0 { false } else { true } })
    }

    @Test("a folder that cannot be listed in the rescan keeps what was known beneath it, and says why")
    func unreadableFolderInRescan() {
        var machine = makeMachine(directories: ["d": 2])
        _ = machine.receive(record(.create, "f", watch: 2), at: at(0))
        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(1))
        var rearming = arming([entry("d", directory: true)])
        let denied = SandboxError(.permissionDenied, "denied")
        rearming.failures = [.init(key: "Documents/d", watch: nil, error: denied)]
        #expect(machine.rescanned(rearming, at: at(2)) == [.emit(.failed(denied))])
        #expect(machine.model.contains("Documents/d/f"))
        #expect(machine.watches == [1: "Documents", 2: "Documents/d"])
    }

    // MARK: - Names

    @Test("a name that is not UTF-8 is reported, byte for byte, and displayed escaped")
    func nonUTF8Name() {
        var machine = makeMachine()
        let name = FileName(uncheckedBytes: [0x6E, 0xFF, 0x2E, 0x74])  // "n\xFF.t"
        let actions = machine.receive(InotifyEvent(watch: 1, mask: .create, name: name), at: at(0))
        let documents: ContainerPath = "Documents"
        let path = documents.appending(name)
        #expect(events(actions) == [.added(path, isDirectory: false)])
        #expect(path.lastName?.bytes == [0x6E, 0xFF, 0x2E, 0x74])
        #expect(path.description == "Documents/n\\xFF.t")
        #expect(tick(&machine, 100) == [.ready(path)])
    }
}
