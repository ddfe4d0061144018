import Foundation
import SandboxTesting
import Testing

@_spi(Testing) @testable import SandboxWatch

extension WatcherTests {
    /// A "forever" duration (Int64.max seconds) in a configuration: the reader threads turn it into a
    /// poll(2) timeout, which once multiplied the seconds by 1,000 and trapped.
    @Suite("FolderMonitor with durations of Int64.max seconds")
    struct HugeDurationTests {
        static let forever = Duration.seconds(Int64.max)

        @Test("a polling interval of Int64.max seconds: the reader waits, then stops when cancelled")
        func pollingInterval() async throws {
            try await TemporaryContainer.with { fixture in
                let monitor = try FolderMonitor(
                    watching: "Documents", in: fixture.root,
                    configuration: .init(backend: .polling(interval: Self.forever)))
                let recorder = EventRecorder(monitor)
                // Resuming is acknowledged at the top of the loop; the timeout is computed right after.
                monitor.pauseReading()
                monitor.resumeReading()
                monitor.cancel()
                #expect(await eventually { recorder.hasEnded })
            }
        }

        @Test("a quiet period of Int64.max seconds: a pending file's deadline becomes the poll timeout")
        func quietPeriod() async throws {
            try await TemporaryContainer.with { fixture in
                let configuration = FolderMonitor.Configuration(
                    backend: .inotify, quietPeriod: Self.forever, maximumDelay: Self.forever,
                    renamePairingWindow: Self.forever)
                let monitor = try FolderMonitor(watching: "Documents", in: fixture.root, configuration: configuration)
                let recorder = EventRecorder(monitor)
                try HostFiles.write(fixture.documents + "/a.txt")
                #expect(await recorder.wait(for: .added("Documents/a.txt", isDirectory: false)))
                // The file waits out its quiet period: a deadline Int64.max seconds away.
                monitor.pauseReading()
                monitor.resumeReading()
                #expect(recorder.count { $0 == .ready("Documents/a.txt") } == 0)
                monitor.cancel()
                #expect(await eventually { recorder.hasEnded })
            }
        }
    }
}
