import Foundation
import Testing

@testable import SandboxWatch

extension WatcherTests {
    @Suite("Snapshot and coalesced changes")
    struct FolderWatcherTests {
        @Test("a snapshot lists items with type and size; differences are exact")
        func snapshotDifference() async throws {
            try await TemporaryContainer.with { fixture in
                try HostFiles.write(fixture.documents + "/a", Array("12345".utf8))
                try HostFiles.write(fixture.documents + "/b")
                let before = try FolderSnapshot.take(of: "Documents", in: fixture.root)
                #expect(before.items["Documents/a"]?.size == 5)
                #expect(before.items["Documents/Inbox"]?.type == .directory)
                try HostFiles.write(fixture.documents + "/a", Array("123456".utf8))
                try HostFiles.unlink(fixture.documents + "/b")
                try HostFiles.mkdir(fixture.documents + "/c")
                let after = try FolderSnapshot.take(of: "Documents", in: fixture.root)
                #expect(
                    after.difference(from: before)
                        == FolderDifference(added: ["Documents/c"], removed: ["Documents/b"], modified: ["Documents/a"])
                )
                #expect(after.difference(from: after).isEmpty)
            }
        }

        @Test("a burst of 2,000 files ends with all of them in the final snapshot, in few updates")
        func burst() async throws {
            try await TemporaryContainer.with { fixture in
                let watcher = try FolderWatcher(
                    watching: "Documents", in: fixture.root, configuration: .init(quietPeriod: .milliseconds(50)))
                defer { watcher.cancel() }
                #expect(watcher.initialSnapshot.items.count == 1)
                var lastClose = ContinuousClock.now
                let writer = Task.detached {
                    var last = ContinuousClock.now
                    for index in 0..<2_000 { last = try HostFiles.write(fixture.documents + "/b-\(index)", []) }
                    return last
                }
                var updates = 0
                var added = 0
                for await update in watcher.updates {
                    updates += 1
                    added += update.changes.added.count
                    if update.snapshot.items.count == 2_001 { break }
                }
                lastClose = try await writer.value
                #expect(added == 2_000)
                print(
                    "burst: 2,000 files in \(updates) updates; final update \(ContinuousClock.now - lastClose) after the last close"
                )
            }
        }

        @Test("a change is noticed and the update carries it")
        func singleChange() async throws {
            try await TemporaryContainer.with { fixture in
                let watcher = try FolderWatcher(watching: "Documents", in: fixture.root)
                defer { watcher.cancel() }
                let close = try HostFiles.write(fixture.documents + "/note.txt")
                var iterator = watcher.updates.makeAsyncIterator()
                let update = await iterator.next()
                #expect(update?.changes == FolderDifference(added: ["Documents/note.txt"]))
                #expect(update?.didOverflow == false)
                print("close → coalesced update (settle 50 ms): \(ContinuousClock.now - close)")
            }
        }
    }
}
