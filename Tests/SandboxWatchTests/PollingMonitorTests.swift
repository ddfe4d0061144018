import Foundation
import Glibc
import SandboxTesting
import Testing

@testable import SandboxWatch

extension WatcherTests {
    @Suite("FolderMonitor on the polling fallback")
    struct PollingMonitorTests {
        let options = FolderMonitor.Configuration(
            backend: .polling(interval: .milliseconds(20)), quietPeriod: .milliseconds(60))

        @Test("added, modified, ready once, removed; what was there before is not reported")
        func changes() async throws {
            try await TemporaryContainer.with { fixture in
                try HostFiles.write(fixture.documents + "/old.txt")
                let monitor = try FolderMonitor(watching: "Documents", in: fixture.root, configuration: options)
                defer { monitor.cancel() }
                #expect(monitor.isPolling)
                let recorder = EventRecorder(monitor)
                let docs = fixture.documents
                try HostFiles.write(docs + "/a.txt")
                #expect(await recorder.wait(for: .added("Documents/a.txt", isDirectory: false)))
                #expect(await recorder.wait(for: .ready("Documents/a.txt")))
                try HostFiles.write(docs + "/old.txt", Array("longer contents\n".utf8))
                #expect(await recorder.wait(for: .modified("Documents/old.txt")))
                #expect(await recorder.wait(for: .ready("Documents/old.txt")))
                try HostFiles.mkdir(docs + "/d")
                try HostFiles.write(docs + "/d/inner")
                #expect(await recorder.wait(for: .added("Documents/d", isDirectory: true)))
                #expect(await recorder.wait(for: .ready("Documents/d/inner")))
                try HostFiles.unlink(docs + "/a.txt")
                #expect(await recorder.wait(for: .removed("Documents/a.txt", isDirectory: false)))
                #expect(recorder.count { $0 == .ready("Documents/a.txt") } == 1)
                #expect(recorder.count { $0 == .added("Documents/old.txt", isDirectory: false) } == 0)
            }
        }

        @Test("no ready while a writer holds the file open, one after it closes")
        func openWriter() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try FolderMonitor(watching: "Documents", in: fixture.root, configuration: options)
                defer { monitor.cancel() }
                let recorder = EventRecorder(monitor)
                let path = fixture.documents + "/slow.bin"
                let fd = try HostFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC)
                try HostFiles.writeAll(fd, [UInt8](repeating: 1, count: 4096), path)
                #expect(await recorder.wait(for: .added("Documents/slow.bin", isDirectory: false)))
                // Several quiet periods with the file open and unchanged: the lease probe holds it back.
                try await Task.sleep(for: .milliseconds(300))
                #expect(recorder.count { if case .ready = $0 { true } else { false } } == 0)
                try HostFiles.close(fd, path)
                #expect(await recorder.wait(for: .ready("Documents/slow.bin")))
                #expect(recorder.count { $0 == .ready("Documents/slow.bin") } == 1)
            }
        }

        @Test("the watched folder deleted: folder-removed ends the sequence")
        func folderDeleted() async throws {
            try await TemporaryContainer.with { fixture in
                try fixture.root.createDirectory(at: "Documents/sub")
                let monitor = try FolderMonitor(watching: "Documents/sub", in: fixture.root, configuration: options)
                let recorder = EventRecorder(monitor)
                _ = try fixture.root.removeItem(at: "Documents/sub", recursively: true)
                #expect(await recorder.wait(for: .folderRemoved("Documents/sub")))
                #expect(await eventually { recorder.hasEnded })
                monitor.cancel()
            }
        }

        @Test("the default backend is inotify; a missing folder is refused by both backends")
        func backends() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try FolderMonitor(watching: "Documents", in: fixture.root)
                #expect(!monitor.isPolling)
                monitor.cancel()
                let missing = #expect(throws: SandboxError.self) {
                    try FolderMonitor(watching: "Documents/none", in: fixture.root, configuration: options)
                }
                #expect(missing?.code == .notFound)
                let noSys = SandboxError.inotifyInstance(errno: ENOSYS)
                #expect(PollingReader.inotifyIsMissing(noSys))
                #expect(!PollingReader.inotifyIsMissing(.inotifyInstance(errno: EMFILE)))
            }
        }

        @Test("100 polling monitors created and cancelled leave no descriptor open")
        func noDescriptorLeaks() async throws {
            try await TemporaryContainer.with { fixture in
                try FolderMonitor(watching: "Documents", in: fixture.root, configuration: options).cancel()
                // The runtime opens a timerfd for its first sleep (in `eventually`): have it open before counting.
                try await Task.sleep(for: .milliseconds(10))
                let before = monitorDescriptors()
                for _ in 0..<100 {
                    try FolderMonitor(watching: "Documents", in: fixture.root, configuration: options).cancel()
                }
                func opened() -> [String: String] { monitorDescriptors().filter { before[$0.key] != $0.value } }
                #expect(await eventually { opened().isEmpty }, "left open: \(opened())")
            }
        }
    }
}
