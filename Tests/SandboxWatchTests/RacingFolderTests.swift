import Foundation
import Glibc
import SandboxTesting
import Testing

@_spi(Testing) @testable import SandboxWatch

extension WatcherTests {
    /// Folders that change faster than the monitor can watch them, lost events, moves across the
    /// folder's edge and odd names, on real inotify (issue 17, items 3, 15 and 16). Reading is
    /// paused while the folder changes, which makes the monitor as late as a busy machine would.
    @Suite("Racing folders on inotify")
    struct RacingFolderTests {
        func monitor(
            _ fixture: TemporaryContainer, folder: ContainerPath = "Documents"
        ) throws -> (FolderMonitor, EventRecorder) {
            let monitor = try FolderMonitor(
                watching: folder, in: fixture.root, configuration: .init(quietPeriod: .milliseconds(50)))
            return (monitor, EventRecorder(monitor))
        }

        func added(_ recorder: EventRecorder) -> Set<String> {
            Set(recorder.events.compactMap { if case .added(let path, _) = $0 { path.description } else { nil } })
        }

        /// Enough empty files to overflow the kernel queue: each gives IN_CREATE and IN_CLOSE_WRITE.
        var overflowingFileCount: Int { (InotifyLimits.read("max_queued_events") ?? 16_384) / 2 + 1_000 }

        @Test("a folder built in a staging folder and renamed into place is watched, and its contents reported")
        func stagingFolderRenamedIntoPlace() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let docs = fixture.documents
                monitor.pauseReading()
                try HostFiles.mkdir(docs + "/staging")
                try HostFiles.write(docs + "/staging/a")
                try HostFiles.mkdir(docs + "/staging/sub")
                try HostFiles.write(docs + "/staging/sub/b")
                try HostFiles.rename(docs + "/staging", docs + "/final")
                monitor.resumeReading()
                #expect(
                    await recorder.wait(
                        for: .renamed(from: "Documents/staging", to: "Documents/final", isDirectory: true)))
                #expect(await recorder.wait(for: .ready("Documents/final/a")))
                #expect(await recorder.wait(for: .ready("Documents/final/sub/b")))
                #expect(added(recorder).isSuperset(of: ["Documents/final/sub"]))
                // Watched from now on, at both levels.
                try HostFiles.write(docs + "/final/later")
                try HostFiles.write(docs + "/final/sub/later")
                #expect(await recorder.wait(for: .ready("Documents/final/later")))
                #expect(await recorder.wait(for: .ready("Documents/final/sub/later")))
            }
        }

        @Test("after an overflow, a file whose close was lost becomes ready, and a re-created folder is watched")
        func overflowRebuildsState() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                try HostFiles.mkdir(docs + "/d")
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let big = docs + "/big.bin"
                let writer = try HostFiles.open(big, O_WRONLY | O_CREAT | O_TRUNC)
                try HostFiles.writeAll(writer, [UInt8](repeating: 1, count: 4096), big)
                #expect(await recorder.wait(for: .added("Documents/big.bin", isDirectory: false)))
                monitor.pauseReading()
                for index in 0..<overflowingFileCount { try HostFiles.write(docs + "/o-\(index)", []) }
                // The queue is full: these events are lost.
                try HostFiles.close(writer, big)
                try HostFiles.rmdir(docs + "/d")
                try HostFiles.mkdir(docs + "/d")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .overflow))
                #expect(await recorder.wait(for: .ready("Documents/big.bin"), timeout: .seconds(30)))
                try HostFiles.write(docs + "/d/new")
                #expect(await recorder.wait(for: .ready("Documents/d/new")))
                try HostFiles.write(big, Array("again".utf8), append: true)
                #expect(await recorder.wait(for: .modified("Documents/big.bin")))
                #expect(monitor.kernelWatchCount == 3)  // Documents, Inbox, d
            }
        }

        @Test("a folder tree moved out of the watched folder is removed, and its watches with it")
        func folderTreeMovedOut() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let docs = fixture.documents
                try HostFiles.mkdir(docs + "/d")
                try HostFiles.mkdir(docs + "/d/s")
                #expect(await recorder.wait(for: .added("Documents/d/s", isDirectory: true)))
                #expect(await eventually { monitor.kernelWatchCount == 4 })  // Documents, Inbox, d, d/s
                let outside = fixture.container.hostPath(for: .tmp) + "/d"
                try HostFiles.rename(docs + "/d", outside)
                #expect(await recorder.wait(for: .removed("Documents/d", isDirectory: true)))
                #expect(monitor.kernelWatchCount == 2)
                try HostFiles.write(outside + "/s/unseen")
                try HostFiles.write(docs + "/barrier")
                #expect(await recorder.wait(for: .ready("Documents/barrier")))
                #expect(!recorder.events.contains { $0.path?.description.contains("unseen") == true })
            }
        }

        @Test("a folder tree moved in from outside is watched, and everything in it reported as added")
        func folderTreeMovedIn() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let outside = fixture.container.hostPath(for: .tmp) + "/x"
                try HostFiles.mkdir(outside)
                try HostFiles.write(outside + "/a")
                try HostFiles.mkdir(outside + "/y")
                try HostFiles.write(outside + "/y/b")
                try HostFiles.rename(outside, fixture.documents + "/x")
                let expected: Set<String> = ["Documents/x", "Documents/x/a", "Documents/x/y", "Documents/x/y/b"]
                #expect(await recorder.wait { _ in added(recorder).isSuperset(of: expected) })
                try HostFiles.write(fixture.documents + "/x/y/c")
                #expect(await recorder.wait(for: .ready("Documents/x/y/c")))
            }
        }

        @Test("the watched folder renamed: folder-removed ends the sequence")
        func watchedFolderRenamed() async throws {
            try await TemporaryContainer.with { fixture in
                try fixture.root.createDirectory(at: "Documents/sub")
                let (monitor, recorder) = try monitor(fixture, folder: "Documents/sub")
                defer { monitor.cancel() }
                try HostFiles.rename(fixture.documents + "/sub", fixture.documents + "/moved")
                #expect(await recorder.wait(for: .folderRemoved("Documents/sub")))
                #expect(await eventually { recorder.hasEnded })
            }
        }

        @Test("the watched folder replaced by a symlink, with events lost meanwhile: folder-removed, never followed")
        func watchedFolderReplacedBySymlinkDuringOverflow() async throws {
            try await TemporaryContainer.with { fixture in
                let docs = fixture.documents
                try HostFiles.mkdir(docs + "/sub")
                let (monitor, recorder) = try monitor(fixture, folder: "Documents/sub")
                defer { monitor.cancel() }
                monitor.pauseReading()
                for index in 0..<overflowingFileCount { try HostFiles.write(docs + "/sub/o-\(index)", []) }
                try HostFiles.rename(docs + "/sub", docs + "/real")
                try HostFiles.symlink("real", at: docs + "/sub")
                monitor.resumeReading()
                #expect(await recorder.wait(for: .folderRemoved("Documents/sub"), timeout: .seconds(30)))
                #expect(await eventually { recorder.hasEnded })
                #expect(recorder.events.last == .folderRemoved("Documents/sub"))
            }
        }

        @Test(
            "names that are not UTF-8 are reported byte for byte (shown escaped), and folders with such names watched")
        func nonUTF8Names() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let documents: ContainerPath = "Documents"
                let file = FileName(uncheckedBytes: [0x66, 0xFF])  // "f\xFF"
                let folder = FileName(uncheckedBytes: [0x64, 0xC3, 0x28])  // "d" and a broken sequence
                try HostFiles.write(in: fixture.documents, rawName: file.bytes)
                #expect(await recorder.wait(for: .ready(documents.appending(file))))
                monitor.pauseReading()
                try HostFiles.mkdir(in: fixture.documents, rawName: folder.bytes)
                try HostFiles.write(in: fixture.documents, rawName: folder.bytes + Array("/inner".utf8))
                monitor.resumeReading()
                let inner = documents.appending(folder).appending(FileName(uncheckedBytes: "inner".utf8))
                #expect(await recorder.wait(for: .added(documents.appending(folder), isDirectory: true)))
                #expect(await recorder.wait(for: .ready(inner)))
                #expect(inner.description == "Documents/d\\xC3(/inner")
                try HostFiles.write(in: fixture.documents, rawName: folder.bytes + Array("/later".utf8))
                #expect(
                    await recorder.wait(
                        for: .ready(documents.appending(folder).appending(FileName(uncheckedBytes: "later".utf8)))))
            }
        }

        @Test("a folder tree deeper than a path can name: watched as far as paths go, the rest reported as failed")
        func treeDeeperThanAPath() async throws {
            try await TemporaryContainer.with { fixture in
                // 2,100 levels of "d/": 4,200 bytes below Documents.
                try HostFiles.mkdirChain(in: fixture.documents, depth: 2_100)
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let tooDeep = await recorder.wait { events in
                    events.contains { if case .failed(let error) = $0 { error.code == .nameTooLong } else { false } }
                }
                #expect(tooDeep)
                try HostFiles.write(fixture.documents + "/d/d/top")
                #expect(await recorder.wait(for: .ready("Documents/d/d/top")))
                let snapshot = try FolderSnapshot.take(of: "Documents", in: fixture.root)
                #expect(snapshot.items["Documents/d/d"]?.type == .directory)
            }
        }
    }
}
