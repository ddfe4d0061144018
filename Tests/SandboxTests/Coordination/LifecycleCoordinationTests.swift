import Foundation
import Sandbox
import Testing

/// The lifecycle operations of the library take part in coordination: each row of
/// CoordinationPolicy's table that involves a `sandbox run` program or a held path.
@Suite("Coordination: uninstall, update, restart and purge with live users")
struct LifecycleCoordinationTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    @Test("uninstall refuses while a program under sandbox run lives, naming it; proceeds once it ends")
    func uninstallUnderRun() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: app)
            let program = try ContainerPresenter(home: home, app: app, kind: .run, description: "sandbox run sh")
            let refused = #expect(throws: SandboxError.self) { try home.uninstall(app) }
            #expect(refused?.code == .containerInUse)
            #expect(refused?.message.contains("sandbox run sh (pid \(getpid()))") == true)
            #expect(FileManager.default.fileExists(atPath: container.homeDirectory))  // nothing removed
            program.close()
            #expect(try home.uninstall(app) > 0)
            #expect(!FileManager.default.fileExists(atPath: container.homeDirectory))
        }
    }

    @Test("an update refuses under a running program and keeps the old bundle; a watcher is told of it")
    func updateUnderRun() async throws {
        try await withTemporaryHomeAsync { home, scratch in
            let (v1, key) = try signedBundle(in: scratch, home: home, named: "v1/Notes.app")
            let container = try home.createContainer(for: app, bundleDirectory: v1)
            let program = container.hostPath(for: .bundle) + "/Notes"
            func version() throws -> String { try String(contentsOfFile: program, encoding: .utf8) }
            let v2 = try makeBundle(in: scratch, named: "v2/Notes.app", files: ["Notes": "#!/bin/sh\necho 2\n"])
            try sign(v2, with: key, version: "2.0")
            let watcher = try ContainerPresenter(home: home, app: app, kind: .watch, description: "a watcher")
            let running = try ContainerPresenter(home: home, app: app, kind: .run, description: "sandbox run Notes")
            let refused = #expect(throws: SandboxError.self) { try home.update(app, bundleDirectory: v2) }
            #expect(refused?.code == .containerInUse)
            #expect(try version().contains("echo notes"))  // the old bundle
            running.close()
            try home.update(app, bundleDirectory: v2)
            #expect(try version().contains("echo 2"))
            var seen: [ContainerPresenter.Notice] = []
            for await notice in watcher.notices {
                seen.append(notice)
                if notice.phase == .did { break }
            }
            // The refused update was never announced: the watcher saw the one that happened (its
            // `will` only if it looked within the moment the operation took: it is not waited for).
            #expect(seen.allSatisfy { $0.operation == .update && $0.epoch == seen[0].epoch })
            #expect(seen.last?.outcome == .completed)
        }
    }

    @Test("a restart refuses while any app runs a program; purge evicts around what a presenter holds")
    func restartAndPurge() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: app)
            let other = try home.createContainer(for: AppIdentifier("com.example.mail"))
            try writeFile(other, "tmp/scratch", bytes: 10)
            let program = try ContainerPresenter(home: home, app: app, kind: .run, description: "sandbox run sh")
            let refused = #expect(throws: SandboxError.self) { try home.restart() }
            #expect(refused?.code == .containerInUse)
            #expect(try other.root.itemExists(at: ContainerPath("tmp/scratch")))  // no app's tmp emptied
            program.close()

            try writeFile(container, "Library/Caches/staging/part", bytes: 4096)
            try writeFile(container, "Library/Caches/old", bytes: 4096)
            try writeFile(container, "tmp/held", bytes: 4096)
            let daemon = try ContainerPresenter(home: home, app: app, kind: .daemon, description: "sandboxd")
            try daemon.hold([ContainerPath("Library/Caches/staging"), ContainerPath("tmp/held")])
            let report = try home.purge()
            #expect(Set(report.items.filter { $0.app == app }.map(\.path)) == ["Library/Caches/old"])
            #expect(try container.root.itemExists(at: ContainerPath("Library/Caches/staging/part")))
            #expect(try container.root.itemExists(at: ContainerPath("tmp/held")))
            daemon.close()
            try home.purge()
            #expect(try !container.root.itemExists(at: ContainerPath("tmp/held")))
        }
    }
}
