import Foundation
import Logging
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

@testable import SandboxDaemon

/// The daemon answers a lifecycle operation from its presenter's own thread (issue 28): a `Daemon`
/// in this process with a download running, every thread of Swift's cooperative pool blocked, and
/// a restore of its app still gets the daemon's answer — its sessions suspended — within its
/// timeout. Had the daemon read its notices from a task on the pool (as it did), the restore would
/// fail with `container-in-use` naming it.
@Suite(.serialized) struct StarvedPoolCoordinationTests {
    @Test func aRestoreMidDownloadIsAnsweredWhileThePoolIsBlocked() async throws {
        let server = try await FaultServer.start()
        var slow = FaultResource(body: TestData.bytes(4 << 20, seed: 51), etag: "\"slow\"")
        slow.chunkSize = 2_048
        slow.chunkDelayMilliseconds = 5
        server.set("/slow.bin", slow)
        try await DaemonFixture.with { fixture in
            let app = try AppIdentifier(DaemonFixture.app)
            let paths = fixture.paths
            for folder in [paths.runtimeDirectory, paths.stateDirectory] {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            }
            var logger = Logger(label: "starved-daemon")
            logger.logLevel = .error
            let daemon = Daemon(
                home: fixture.home, options: DaemonOptions(paths: paths), queue: try EventQueue(path: paths.queue),
                logger: logger)
            let url = try #require(URL(string: server.url("/slow.bin")))
            let host = try await daemon.host(for: SessionKey(app: DaemonFixture.app, session: "s"))
            try host.submit(BackgroundRequest(DownloadRequest(url: url))) { _ in }
            #expect(await eventually { server.bodyBytesSent(for: "/slow.bin") > 64 << 10 })
            #expect(try fixture.home.presenters(of: app).map(\.kind) == [.daemon])

            let width = ProcessInfo.processInfo.activeProcessorCount
            let pool = BlockedPool()
            for _ in 0..<width {
                Task.detached { pool.hold() }
            }
            let timeout = Duration.seconds(5)
            let outcome = await onThread { () -> Result<Duration, SandboxError> in
                defer { pool.release() }
                guard pool.waitUntilHeld(width) else { return .failure(SandboxError(.interrupted, "never blocked")) }
                let started = ContinuousClock.now
                do throws(SandboxError) {
                    try fixture.home.coordinating(.restore, of: app, timeout: timeout) { () throws(SandboxError) in
                        try Self.replaceDataContainer(of: app, in: fixture.home)
                    }
                    return .success(ContinuousClock.now - started)
                } catch {
                    return .failure(error)
                }
            }
            let took = try outcome.get()
            #expect(took < timeout, "\(took)")
            await daemon.shutdown()
            try await server.stop()
        }
    }

    /// What a restore does: a new data container exchanged with the live one, the old one removed.
    private static func replaceDataContainer(of app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
        let live = try ContainerPath("Containers/Data/\(app.rawValue)")
        let stage = try ContainerPath("Containers/Data/.restoring-\(app.rawValue)")
        for folder in ["Documents", "Library/Caches", "tmp"] {
            try home.root.createDirectory(
                at: try ContainerPath("\(stage)/\(folder)"), withIntermediateDirectories: true)
        }
        try home.root.exchangeItems(at: live, with: stage)
        try home.root.removeItem(at: stage, recursively: true)
    }
}
