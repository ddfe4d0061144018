import Foundation
import Testing

@testable import SandboxWatch

/// What the monitor holds per folder (issue 31: start-up and memory on 100,000 folders): each
/// folder's path is stored once, however many tables hold it.
@Suite("Monitor footprint")
struct MachineFootprintTests: MachineDriving {
    let t0 = ContinuousClock.now

    /// `Documents` (files f0, f1; folders a, b, and c, which vanished before it was reached), `a`
    /// (file x, folder sub), `b` (empty), `a/sub` (file y), in the order the arming reaches them.
    func arming(root: ContainerPath) -> MonitorMachine.Arming {
        var arming = MonitorMachine.Arming()
        arming.directories = [
            .init(
                key: root, watch: 1,
                entries: [
                    entry("f0"), entry("a", directory: true), entry("f1"), entry("b", directory: true),
                    entry("c", directory: true),
                ]),
            .init(key: "Documents/a", watch: 2, entries: [entry("x"), entry("sub", directory: true)]),
            .init(key: "Documents/b", watch: 3, entries: []),
            .init(key: "Documents/a/sub", watch: 4, entries: [entry("y")]),
        ]
        return arming
    }

    /// The folder's items as ``FolderModel/allEntries()`` lists them: a directory's items, then
    /// those of its subdirectories.
    let items: [(String, Bool)] = [
        ("Documents/a", true), ("Documents/b", true), ("Documents/c", true), ("Documents/f0", false),
        ("Documents/f1", false), ("Documents/a/sub", true), ("Documents/a/x", false), ("Documents/a/sub/y", false),
    ]

    let configuration = MonitorMachine.Configuration(
        folder: "Documents", recursive: true, quietPeriod: .milliseconds(100), pairingWindow: .milliseconds(50),
        tracksReadiness: true)

    func expectModel(_ machine: MonitorMachine) {
        #expect(machine.model.allEntries().map { "\($0.key)" } == items.map(\.0))
        #expect(machine.model.allEntries().map(\.isDirectory) == items.map(\.1))
        #expect(
            machine.watches == [1: "Documents", 2: "Documents/a", 3: "Documents/b", 4: "Documents/a/sub"])
        #expect(machine.watchOfDirectory.count == 4)
        #expect(machine.emptyTablesWithStorage == 0)  // b, c
    }

    @Test("each folder's path is stored once: in its parent's table, as its own table's key and in both watch maps")
    func pathStoredOnce() {
        var machine = MonitorMachine(configuration: configuration)
        #expect(machine.recordBaseline(arming(root: machine.rootKey)).isEmpty)
        expectModel(machine)
        // The folder and its 8 items; before, each watched folder beneath it was stored twice (12).
        #expect(machine.pathStorageCount == 1 + items.count)

        _ = machine.receive(record(.queueOverflow, nil, watch: -1), at: at(0))
        _ = machine.rescanned(arming(root: machine.rootKey), at: at(1))
        expectModel(machine)
        // The rescan's fresh model shares the arming's paths too (the settling files hold theirs).
        #expect(machine.pathStorageCount == 1 + items.count)
    }

    @Test("armed from the disk, a tree's folders are stored once each (the arming's order is the model's)")
    func armedTreeStoredOnce() async throws {
        try await TemporaryContainer.with { container in
            for top in 0..<3 {
                try HostFiles.mkdir(container.documents + "/d\(top)")
                _ = try HostFiles.write(container.documents + "/d\(top)/file")
                for child in 0..<3 { try HostFiles.mkdir(container.documents + "/d\(top)/f\(child)") }
            }
            let armed = try ArmedMonitor(configuration: configuration, root: container.root)
            // 3 + 9 folders and 3 files beneath the folder (and what a new container's Documents
            // holds), each stored once, and the folder itself.
            let model = armed.machine.model
            #expect(model.count >= 15)
            #expect(armed.machine.watches.count == 1 + model.allEntries().count(where: \.isDirectory))
            #expect(armed.machine.pathStorageCount == 1 + model.count)
            #expect(armed.machine.emptyTablesWithStorage == 0)  // the 9 f folders
        }
    }
}
