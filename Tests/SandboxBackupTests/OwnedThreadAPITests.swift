import SandboxBackup
import SandboxCore
import Synchronization
import Testing

/// The public API is `async` and its blocking work — file reads and writes, SQLite's backup, the
/// repository's requests — runs on threads the library owns, never on the cooperative pool of the
/// awaiting task: the progress a backup and a restore report comes from their own named threads.
@Suite struct OwnedThreadAPITests {
    @Test func backupAndRestoreWorkOnTheirOwnThreads() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("hello".utf8))
            let repository = try await Repository.openOrCreate(
                try await RepositoryAddress(fixture.repositoryPath).storage(creating: true), password: nil)
            let backupThreads = Mutex<Set<String>>([])
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository) { _ in
                backupThreads.withLock { _ = $0.insert(ThreadName.current() ?? "unnamed") }
            }
            #expect(backupThreads.withLock { $0 } == ["sandbox-backup"])
            let restoreThreads = Mutex<Set<String>>([])
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: report.snapshot),
                from: repository, into: fixture.home
            ) { _ in
                restoreThreads.withLock { _ = $0.insert(ThreadName.current() ?? "unnamed") }
            }
            #expect(restoreThreads.withLock { $0 } == ["sandbox-restore"])
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
            #expect(try await Pruner.prune(repository, keepingLast: 1).snapshotsKept == 1)
            await repository.close()
        }
    }
}
