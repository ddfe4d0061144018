import Foundation
import Sandbox
import SandboxTesting
import SandboxWatch
import Testing

extension WatcherTests {
    @Suite("FolderWatcher and ContainerFolderMonitor follow their container (issue 28)")
    struct ContainerFollowingTests {
        @Test("a FolderWatcher reports a restore as a replaced container, then watches the restored one")
        func watcherFollowsARestore() async throws {
            try await TemporaryContainer.with { fixture in
                try HostFiles.write(fixture.documents + "/before.txt")
                let watcher = try FolderWatcher(
                    watching: "Documents", of: fixture.container, configuration: .init(quietPeriod: .milliseconds(20)))
                #expect(watcher.initialSnapshot.items.keys.contains { $0.description == "Documents/before.txt" })
                let app = fixture.container.identifier
                let failure = await coordinate(.restore, of: app, in: fixture.home) { () throws(SandboxError) in
                    try restoreContainer(of: app, in: fixture.home, documents: ["restored.txt"])
                }
                #expect(failure == nil)
                // The restore returned once the watcher watched the new container: what is
                // written there now is seen.
                try HostFiles.write(fixture.documents + "/after.txt")
                var updates: [FolderUpdate] = []
                for await update in watcher.updates {
                    updates.append(update)
                    if update.snapshot.items.keys.contains(where: { $0.description == "Documents/after.txt" }) { break }
                }
                let names = updates.map { Set($0.snapshot.items.keys.map(\.description)) }
                // The first update is the replaced container's (never the old one being removed).
                #expect(updates.first?.containerReplaced == true, "\(names)")
                #expect(names.first?.contains("Documents/restored.txt") == true, "\(names)")
                #expect(names.allSatisfy { !$0.contains("Documents/before.txt") && !$0.isEmpty }, "\(names)")
                #expect(updates.first?.changes.removed.contains { $0.description == "Documents/before.txt" } == true)
                #expect(names.last == ["Documents/restored.txt", "Documents/after.txt"])
                #expect(updates.dropFirst().allSatisfy { !$0.containerReplaced && !$0.containerRemoved })
                #expect(try fixture.home.presenters(of: app).map(\.kind) == [.watch])
                watcher.cancel()
                #expect(try fixture.home.presenters(of: app).isEmpty)
            }
        }

        @Test("a FolderWatcher's updates end after an uninstall, the last one saying so")
        func watcherEndsAtAnUninstall() async throws {
            try await TemporaryContainer.with { fixture in
                try HostFiles.write(fixture.documents + "/kept.txt")
                let watcher = try FolderWatcher(watching: "Documents", of: fixture.container)
                let app = fixture.container.identifier
                let failure = await coordinate(.uninstall, of: app, in: fixture.home) { () throws(SandboxError) in
                    try removeContainer(of: app, in: fixture.home)
                }
                #expect(failure == nil)
                var updates: [FolderUpdate] = []
                for await update in watcher.updates { updates.append(update) }  // ends: no deadline needed
                #expect(updates.count == 1, "\(updates.map(\.snapshot.items.keys))")
                #expect(updates.last?.containerRemoved == true)
                #expect(updates.last?.snapshot.items.isEmpty == true)
                #expect(
                    Set(updates.last?.changes.removed.map(\.description) ?? []) == [
                        "Documents/Inbox", "Documents/kept.txt",
                    ])
                // Ended, it no longer registers: the next operation on the app does not wait for it.
                #expect(try fixture.home.presenters(of: app).isEmpty)
                withExtendedLifetime(watcher) {}
            }
        }

        @Test("a FolderWatcher goes on in place after an operation that failed")
        func watcherStaysAfterAFailedRestore() async throws {
            try await TemporaryContainer.with { fixture in
                let watcher = try FolderWatcher(
                    watching: "Documents", of: fixture.container, configuration: .init(quietPeriod: .milliseconds(20)))
                let app = fixture.container.identifier
                let failure = await coordinate(.restore, of: app, in: fixture.home) { () throws(SandboxError) in
                    throw SandboxError(.corrupt, "the snapshot does not read")
                }
                #expect(failure?.code == .corrupt)
                try HostFiles.write(fixture.documents + "/later.txt")
                var iterator = watcher.updates.makeAsyncIterator()
                let update = await iterator.next()
                #expect(update?.changes.added.map(\.description) == ["Documents/later.txt"])
                #expect(update?.containerReplaced == false)
            }
        }

        @Test(
            "a restore that removes the old container at once, then runs on, is never reported as the folder's removal")
        func monitorHoldsTheOperationsRemoval() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try ContainerFolderMonitor(watching: "Documents", of: fixture.container)
                let recorder = EventRecorder(events: monitor.events)
                let app = fixture.container.identifier
                let failure = await coordinate(.restore, of: app, in: fixture.home) { () throws(SandboxError) in
                    try restoreContainer(of: app, in: fixture.home, documents: ["restored.txt"])
                    // The rest of a restore (the keychain, …) after the swap: longer than the
                    // 2 s the monitor used to wait for a notice explaining the removal.
                    OwnedThread.sleep(for: .milliseconds(2_500))
                }
                #expect(failure == nil)
                #expect(await recorder.wait(for: .containerReplaced("Documents")), "\(recorder.events)")
                #expect(!recorder.events.contains(.folderRemoved("Documents")), "\(recorder.events)")
                try HostFiles.write(fixture.documents + "/after.txt")
                #expect(await recorder.wait(for: .ready("Documents/after.txt")), "\(recorder.events)")
                monitor.cancel()
            }
        }

        @Test("a folder removed by no operation is reported at once (no hold-back)")
        func monitorReportsAnUnexplainedRemovalAtOnce() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try ContainerFolderMonitor(watching: "Documents", of: fixture.container)
                let recorder = EventRecorder(events: monitor.events)
                try FileManager.default.removeItem(atPath: fixture.documents)
                let removed = ContinuousClock.now
                #expect(await recorder.wait(for: .folderRemoved("Documents")))
                let reported = try #require(recorder.received.first { $0.event == .folderRemoved("Documents") }).at
                // It used to be held back 2 s for a notice that might explain it.
                #expect(reported - removed < .milliseconds(1_500), "\(reported - removed)")
                #expect(await eventually { recorder.hasEnded })
            }
        }
    }
}
