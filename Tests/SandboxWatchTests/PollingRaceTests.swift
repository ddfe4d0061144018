import Foundation
import Glibc
import SandboxTesting
import Testing

@_spi(Testing) @testable import SandboxWatch

extension WatcherTests {
    /// The polling backend against the cases of ``RacingFolderTests``: it reads whole snapshots,
    /// so it must report in the inotify backend's terms and never follow a symlinked folder.
    @Suite("Racing folders on the polling fallback")
    struct PollingRaceTests {
        let configuration = WatchConfiguration(
            backend: .polling(interval: .milliseconds(20)), quietPeriod: .milliseconds(60))

        func monitor(
            _ fixture: TemporaryContainer, folder: ContainerPath = "Documents"
        ) throws -> (
            FolderMonitor, EventRecorder
        ) {
            let monitor = try FolderMonitor(watching: folder, in: fixture.root, configuration: configuration)
            return (monitor, EventRecorder(monitor))
        }

        @Test("a file replaced by a folder is removed and added, never modified, and a folder is never ready")
        func typeChange() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                try HostFiles.write(docs + "/x")
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                monitor.pauseReading()
                try HostFiles.unlink(docs + "/x")
                try HostFiles.mkdir(docs + "/x")
                try HostFiles.write(docs + "/x/inner")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .ready("Documents/x/inner")))
                #expect(try await barrier(fixture, recorder))
                let aboutX = recorder.events.filter { $0.path == "Documents/x" }
                #expect(
                    aboutX == [.removed("Documents/x", isDirectory: false), .added("Documents/x", isDirectory: true)])
            }
        }

        @Test("a removed folder stands for its contents: one removal")
        func removedFolder() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                try HostFiles.mkdir(docs + "/d")
                try HostFiles.write(docs + "/d/a")
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                monitor.pauseReading()
                try HostFiles.unlink(docs + "/d/a")
                try HostFiles.rmdir(docs + "/d")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .removed("Documents/d", isDirectory: true)))
                #expect(try await barrier(fixture, recorder))
                #expect(recorder.count { if case .removed = $0 { true } else { false } } == 1)
            }
        }

        @Test("a folder built in a staging folder and renamed into place: everything in it is reported")
        func stagingFolderRenamedIntoPlace() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                monitor.pauseReading()
                try HostFiles.mkdir(docs + "/staging")
                try HostFiles.mkdir(docs + "/staging/sub")
                try HostFiles.write(docs + "/staging/sub/b")
                try HostFiles.rename(docs + "/staging", docs + "/final")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .ready("Documents/final/sub/b")))
                try HostFiles.write(docs + "/final/sub/later")
                #expect(await recorder.wait(for: .ready("Documents/final/sub/later")))
            }
        }

        @Test("the watched folder replaced by a symlink: folder-removed, the link never followed")
        func watchedFolderReplacedBySymlink() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                try HostFiles.mkdir(docs + "/sub")
                try HostFiles.mkdir(docs + "/other")
                try HostFiles.write(docs + "/other/elsewhere")
                let (monitor, recorder) = try monitor(fixture, folder: "Documents/sub")
                defer { monitor.cancel() }
                monitor.pauseReading()
                try HostFiles.rmdir(docs + "/sub")
                try HostFiles.symlink("other", at: docs + "/sub")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .folderRemoved("Documents/sub")))
                #expect(await eventually { recorder.hasEnded })
                #expect(recorder.events == [.folderRemoved("Documents/sub")])
            }
        }

        @Test("a symlinked folder is refused by snapshots and watchers, as by monitors")
        func symlinkedFolderRefused() async throws {
            try await TemporaryContainer.with { fixture in
                try HostFiles.mkdir(fixture.documents + "/real")
                try HostFiles.symlink("real", at: fixture.documents + "/link")
                let snapshot = #expect(throws: SandboxError.self) {
                    try FolderSnapshot.take(of: "Documents/link", in: fixture.root)
                }
                #expect(snapshot?.code == .notADirectory)
                let watcher = #expect(throws: SandboxError.self) {
                    try FolderWatcher(watching: "Documents/link", in: fixture.root, configuration: configuration)
                }
                #expect(watcher?.code == .notADirectory)
            }
        }

        @Test("names that are not UTF-8 are reported byte for byte")
        func nonUTF8Names() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let documents: ContainerPath = "Documents"
                let name = FileName(uncheckedBytes: [0x66, 0xFF])
                try HostFiles.write(in: fixture.documents, rawName: name.bytes)
                #expect(await recorder.wait(for: .ready(documents.appending(name))))
            }
        }

        /// Creates a file after everything else and waits for its `ready`: every earlier change has
        /// been reported when it returns.
        func barrier(_ fixture: TemporaryContainer, _ recorder: EventRecorder) async throws -> Bool {
            try HostFiles.write(fixture.documents + "/barrier")
            return await recorder.wait(for: .ready("Documents/barrier"))
        }
    }

    @Suite("FolderWatcher on the polling fallback")
    struct PollingWatcherTests {
        @Test("a polling watcher is configured like a monitor and publishes each change")
        func pollingWatcher() async throws {
            try await TemporaryContainer.with { fixture in
                let configuration = FolderWatcher.Configuration(backend: .polling(interval: .milliseconds(20)))
                let watcher = try FolderWatcher(watching: "Documents", in: fixture.root, configuration: configuration)
                defer { watcher.cancel() }
                #expect(watcher.configuration == configuration)
                try HostFiles.write(fixture.documents + "/note.txt")
                var iterator = watcher.updates.makeAsyncIterator()
                let update = await iterator.next()
                #expect(update?.changes == FolderDifference(added: ["Documents/note.txt"]))
            }
        }
    }
}
