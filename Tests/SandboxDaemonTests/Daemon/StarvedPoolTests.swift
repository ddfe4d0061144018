import Foundation
import SandboxTesting
import SandboxTransfer
import Testing

/// A client's hello does not wait for Swift's cooperative pool: with every thread of that pool
/// blocked past the daemon's 5 s hello deadline while the client connects, the connection is
/// still admitted. Had the hello been written from a task on the pool (as it was), the daemon
/// would have closed the connection first (`appsStartingAtOnceStartOneDaemon` lost its status
/// query that way on a loaded machine).
@Suite(.serialized) struct StarvedPoolTests {
    @Test func aClientConnectingWhileThePoolIsBlockedIsAdmitted() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon()
            let paths = fixture.paths
            let width = ProcessInfo.processInfo.activeProcessorCount
            let pool = BlockedPool()
            // This task runs on an engine thread of its own: it connects while the pool is blocked.
            let engine = IOEngine(threadCount: 1)
            defer { engine.shutdown() }
            let outcome = await engine.withTaskExecutor { () async -> Result<DaemonStatus, SandboxError> in
                for _ in 0..<width {
                    Task.detached { pool.hold() }
                }
                guard await onThread({ pool.waitUntilHeld(width) }) else {
                    pool.release()
                    return .failure(SandboxError(.interrupted, "the pool was never blocked"))
                }
                // Released 8 s after the connect: past the daemon's hello deadline (5 s from accepting).
                let release = ContinuousClock.now + .seconds(8)
                Thread {
                    _ = BoundedPoll.until(release) { false }
                    pool.release()
                }.start()
                do throws(SandboxError) {
                    return .success(try await DaemonStatus.query(paths: paths))
                } catch {
                    return .failure(error)
                }
            }
            let status = try outcome.get()
            #expect(status.pid == fixture.daemonPIDs().first)
            #expect(!fixture.daemonLog().contains("no hello"), "\(fixture.daemonLog())")
        }
    }
}
