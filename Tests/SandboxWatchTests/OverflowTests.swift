import Foundation
import Testing

@_spi(Testing) @testable import SandboxWatch

extension WatcherTests {
    @Suite("Overflow: nothing is lost")
    struct OverflowTests {
        /// Enough empty files to overflow the kernel queue: each gives IN_CREATE and IN_CLOSE_WRITE.
        var overflowingFileCount: Int {
            (InotifyLimits.read("max_queued_events") ?? 16_384) / 2 + 1_000
        }

        @Test("kernel queue overflow while the reader is paused: reported, rescanned, every file added")
        func kernelOverflow() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try FolderMonitor(watching: "Documents", in: fixture.root)
                defer { monitor.cancel() }
                let recorder = EventRecorder(monitor)
                let count = overflowingFileCount
                monitor.pauseReading()
                for index in 0..<count { try HostFiles.write(fixture.documents + "/o-\(index)", []) }
                let resumed = ContinuousClock.now
                monitor.resumeReading()
                #expect(await recorder.wait(for: .overflow))
                let complete = await recorder.wait(timeout: .seconds(30)) { events in
                    events.count { if case .added = $0 { true } else { false } } >= count
                }
                #expect(complete)
                let added = Set(recorder.events.compactMap { if case .added(let path, _) = $0 { path } else { nil } })
                #expect(added.count == count)
                print("overflow: \(count) files, all reported \(ContinuousClock.now - resumed) after resuming")
            }
        }

        @Test("a consumer that falls behind the buffer gets overflow, and the folder is complete")
        func consumerOverflow() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try FolderMonitor(
                    watching: "Documents", in: fixture.root, configuration: .init(bufferLimit: 50))
                defer { monitor.cancel() }
                monitor.pauseReading()
                for index in 0..<500 { try HostFiles.write(fixture.documents + "/c-\(index)", []) }
                // Resuming and pausing again returns once the reader has handled every record, with
                // nobody reading its events: 500 `added` do not fit in a buffer of 50.
                monitor.resumeReading()
                monitor.pauseReading()
                let recorder = EventRecorder(monitor)
                monitor.resumeReading()
                #expect(await recorder.wait(for: .overflow))
                #expect(recorder.events.firstIndex(of: .overflow) == 50)
                let snapshot = try FolderSnapshot.take(of: "Documents", in: fixture.root)
                #expect(snapshot.items.count == 501)  // and Inbox
            }
        }

        @Test("the watcher's updates after an overflow hold the complete folder")
        func watcherOverflow() async throws {
            try await TemporaryContainer.with { fixture in
                let watcher = try FolderWatcher(watching: "Documents", in: fixture.root)
                defer { watcher.cancel() }
                let count = overflowingFileCount
                watcher.pauseReading()
                for index in 0..<count { try HostFiles.write(fixture.documents + "/w-\(index)", []) }
                let resumed = ContinuousClock.now
                watcher.resumeReading()
                var sawOverflow = false
                for await update in watcher.updates {
                    sawOverflow = sawOverflow || update.didOverflow
                    if update.snapshot.items.count == count + 1 { break }
                }
                #expect(sawOverflow)
                print(
                    "watcher overflow: \(count) files in the snapshot \(ContinuousClock.now - resumed) after resuming")
            }
        }
    }
}
