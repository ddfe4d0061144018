import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

/// A storage that runs `hook` once, the first time a data blob is read: a prune "running at the
/// same time" as the check or restore that reads it; and `beforeWrite` before every put or
/// replace (another process's write landing between this one's read and write).
final class ReadHookStorage: ForwardingStorage, @unchecked Sendable {
    let hook: Mutex<(@Sendable () -> Void)?>
    let beforeWrite: @Sendable (ObjectName) -> Void

    init(
        _ base: any RepositoryStorage, hook: @escaping @Sendable () -> Void = {},
        beforeWrite: @escaping @Sendable (ObjectName) -> Void = { _ in }
    ) {
        self.hook = Mutex(hook)
        self.beforeWrite = beforeWrite
        super.init(base)
    }

    override func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        beforeWrite(name)
        return try super.putIfAbsent(bytes, as: name)
    }
    override func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) {
        beforeWrite(name)
        try super.replace(bytes, as: name)
    }
    override func get(_ name: ObjectName) throws(SandboxError) -> [UInt8] {
        runHookOnce(before: name)
        return try super.get(name)
    }
    override func get(_ name: ObjectName, range: Range<Int64>) throws(SandboxError) -> [UInt8] {
        runHookOnce(before: name)
        return try super.get(name, range: range)
    }

    /// The hook, the first time a data object is read.
    private func runHookOnce(before name: ObjectName) {
        guard name.kind == .data else { return }
        let run = hook.withLock { hook in
            defer { hook = nil }
            return hook
        }
        run?()
    }
}

/// What the operation run beside another ended with.
final class Outcome: Sendable {
    let error = Mutex<SandboxError?>(nil)
    var value: SandboxError? { error.withLock { $0 } }
}

/// Checks and restores hold a shared lock, prunes an exclusive one: a prune never removes the
/// snapshot a restore or a check is reading (it is refused instead), and a backup still runs
/// beside them.
@Suite struct LockTests {
    /// Two snapshots with different contents; returns the older's id.
    static func twoSnapshots(_ fixture: BackupFixture) throws -> String {
        try fixture.write("Documents/a.bin", ChunkerTests.pseudoRandom(1 << 20, seed: 1))
        let old = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
        try fixture.write("Documents/a.bin", ChunkerTests.pseudoRandom(1 << 20, seed: 2))
        _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
        return old.snapshot
    }

    /// A storage whose first blob read runs `prune --keep-last 1`, recording its outcome.
    static func storageWithConcurrentPrune(
        _ fixture: BackupFixture, outcome: Outcome
    ) throws -> ReadHookStorage {
        let path = fixture.repositoryPath
        return ReadHookStorage(try LocalRepositoryStorage(openingDirectoryAt: path)) {
            do throws(SandboxError) {
                let other = try Repository.open(LocalRepositoryStorage(openingDirectoryAt: path), password: nil)
                _ = try Pruner.prune(other, keepingLast: 1)
            } catch {
                outcome.error.withLock { $0 = error }
            }
        }
    }

    @Test func aPruneDuringARestoreIsRefusedAndTheRestoreCompletes() async throws {
        try await BackupFixture.with { fixture in
            let old = try Self.twoSnapshots(fixture)
            let outcome = Outcome()
            let repository = try await Repository.open(
                try Self.storageWithConcurrentPrune(fixture, outcome: outcome), password: nil)
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: old), from: repository,
                into: fixture.home)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/a.bin")))
                    == Data(ChunkerTests.pseudoRandom(1 << 20, seed: 1)))
            let refusal = outcome.value
            #expect(refusal?.code == .repositoryLocked, "\(String(describing: refusal))")
            #expect(refusal?.message.contains("restore") == true)
            // Afterwards the prune runs, and a backup was never kept out.
            #expect(try await Pruner.prune(try fixture.repository(), keepingLast: 1).snapshotsRemoved == 1)
        }
    }

    @Test func aPruneDuringACheckIsRefusedAndTheCheckFindsNothingMissing() async throws {
        try await BackupFixture.with { fixture in
            _ = try Self.twoSnapshots(fixture)
            let outcome = Outcome()
            let repository = try await Repository.open(
                try Self.storageWithConcurrentPrune(fixture, outcome: outcome), password: nil)
            let report = try await Checker.check(repository, readingData: true)
            #expect(report.isHealthy, "\(report.problems)")
            #expect(outcome.value?.code == .repositoryLocked)
        }
    }

    /// A prune started while a backup runs (here: as it reads its parent's tree) is refused,
    /// naming the backup, and the backup completes.
    @Test func aPruneDuringABackupIsRefusedAndTheBackupCompletes() async throws {
        try await BackupFixture.with { fixture in
            _ = try Self.twoSnapshots(fixture)
            let outcome = Outcome()
            let repository = try await Repository.open(
                try Self.storageWithConcurrentPrune(fixture, outcome: outcome), password: nil)
            try fixture.write("Documents/b.bin", ChunkerTests.pseudoRandom(1 << 20, seed: 3))
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let refusal = outcome.value
            #expect(refusal?.code == .repositoryLocked, "\(String(describing: refusal))")
            #expect(refusal?.message.contains("in use by a backup") == true, "\(String(describing: refusal))")
            #expect(try await fixture.repository().snapshots().count == 3)
        }
    }

    @Test func aBackupRunsBesideARestoreButNotBesideAPrune() async throws {
        try await BackupFixture.with { fixture in
            let old = try Self.twoSnapshots(fixture)
            let outcome = Outcome()
            let path = fixture.repositoryPath
            let home = fixture.home
            let storage = ReadHookStorage(try LocalRepositoryStorage(openingDirectoryAt: path)) {
                do throws(SandboxError) {
                    let other = try Repository.open(LocalRepositoryStorage(openingDirectoryAt: path), password: nil)
                    _ = try Backup.run(apps: [BackupFixture.app], from: home, to: other)
                } catch {
                    outcome.error.withLock { $0 = error }
                }
            }
            let repository = try await Repository.open(storage, password: nil)
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try repository.snapshot(matching: old), from: repository,
                into: fixture.home)
            #expect(outcome.value == nil)
            #expect(try await fixture.repository().snapshots().count == 3)
        }
    }
}
