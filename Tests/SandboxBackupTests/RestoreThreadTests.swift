import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A restore's blob readers and file writers (``WorkerPool`` threads) have all ended when it
/// returns, whether it succeeded or failed, and a pool stops however its threads are waiting.
@Suite struct RestoreThreadTests {
    @Test func aFailedRestoreLeavesNoThreadBehind() async throws {
        try await BackupFixture.with { fixture in
            let repository = try RepositoryFailureTests.backedUp(fixture)
            #expect(unlink(try RepositoryFailureTests.blobPath(of: "Documents/two.bin", fixture, repository)) == 0)
            let started = StartedThreads()
            let error = StartedThreads.$current.withValue(started) {
                failure { () throws(SandboxError) in
                    _ = try Restore.run(
                        app: BackupFixture.app, snapshot: try repository.snapshot(matching: nil), from: repository,
                        into: fixture.home)
                }
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(started.all.count == 4, "two readers and two writers: \(started.all)")
            try await Self.expectEnded(started.all)
        }
    }

    @Test func aPoolStopsWithItsThreadsWaitingEitherWay() async throws {
        let started = StartedThreads()
        let repository = try await BackupFixture.with { fixture in try fixture.repository() }
        StartedThreads.$current.withValue(started) {
            // Writers waiting for work, one job failed: the failure comes back, stop ends them.
            let files = FileWritePool(threads: 2, maximumPending: 1)
            #expect(throws: SandboxError.self) {
                try files.submit { () throws(SandboxError) in throw SandboxError(.io, "injected") }
                try files.drain()
            }
            files.stop()
            // Readers held back by the bound (nothing taken), blobs that will never load.
            let blobs = BlobPrefetcher(
                ids: (0..<8).map { "missing\($0)" }, repository: repository, readers: 2, maximumBlobsAhead: 1)
            blobs.stop()
        }
        #expect(started.all.count == 4)
        try await Self.expectEnded(started.all)
    }

    /// Waits (up to a minute: CI's machine is often busy) until none of `threads` is alive.
    static func expectEnded(_ threads: [pid_t], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        func alive() -> [pid_t] {
            threads.filter { id in
                // Kernel ids grow until they wrap at pid_max: an id is not reused while a test runs.
                let comm = try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)
                return comm?.hasPrefix("restore-") == true
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while !alive().isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(alive().isEmpty, "threads still running: \(alive())", sourceLocation: sourceLocation)
    }
}
