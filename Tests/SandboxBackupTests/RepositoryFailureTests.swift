import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

@Suite struct RepositoryFailureTests {
    /// A repository with one snapshot of a container holding two files of distinct contents.
    static func backedUp(_ fixture: BackupFixture, password: String? = nil) throws -> Repository {
        try fixture.write("Documents/one.bin", ChunkerTests.pseudoRandom(100_000, seed: 11))
        try fixture.write("Documents/two.bin", ChunkerTests.pseudoRandom(100_000, seed: 12))
        let repository = try fixture.repository(password: password)
        _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
        return repository
    }

    /// The data object holding the first chunk of `relative`.
    static func blobPath(of relative: String, _ fixture: BackupFixture, _ repository: Repository) throws -> String {
        try blobLocation(of: relative, fixture, repository).path
    }

    /// The data object (a pack) holding the first chunk of `relative`, and where in it.
    static func blobLocation(
        of relative: String, _ fixture: BackupFixture, _ repository: Repository
    ) throws -> (path: String, offset: Int) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath(relative)))
        let report = try Checker.check(repository, readingData: false)
        #expect(report.isHealthy)
        // Find it by content: the unencrypted blob is the file itself, somewhere in its pack.
        for folder in try FileManager.default.contentsOfDirectory(atPath: fixture.repositoryPath + "/data") {
            for name in try FileManager.default.contentsOfDirectory(atPath: fixture.repositoryPath + "/data/" + folder)
            {
                let path = fixture.repositoryPath + "/data/\(folder)/\(name)"
                let stored = try Data(contentsOf: URL(fileURLWithPath: path))
                if let range = stored.range(of: bytes) { return (path, range.lowerBound - stored.startIndex) }
            }
        }
        throw TestFailure("no blob holds \(relative)")
    }

    @Test func checkReadDataFindsAFlippedByteAndNamesTheFile() async throws {
        try await BackupFixture.with { fixture in
            let repository = try Self.backedUp(fixture)
            let (blob, offset) = try Self.blobLocation(of: "Documents/two.bin", fixture, repository)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: blob))
            bytes[offset + 500] ^= 0x01
            #expect(chmod(blob, 0o644) == 0)
            try bytes.write(to: URL(fileURLWithPath: blob))
            #expect(try await Checker.check(repository, readingData: false).isHealthy)  // structure is intact
            let report = try await Checker.check(repository, readingData: true)
            #expect(!report.isHealthy)
            #expect(report.affectedFiles.count == 1)
            #expect(report.affectedFiles.first?.hasSuffix("com.example.notes:Documents/two.bin") == true)
            // A restore refuses it and changes nothing.
            await #expect(throws: SandboxError.self) {
                try await Restore.run(
                    app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                    into: fixture.home)
            }
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/one.bin")))
        }
    }

    @Test func aMissingBlobIsNamedByCheckAndRefusedByRestore() async throws {
        try await BackupFixture.with { fixture in
            let repository = try Self.backedUp(fixture)
            #expect(unlink(try Self.blobPath(of: "Documents/one.bin", fixture, repository)) == 0)
            let report = try await Checker.check(repository, readingData: false)
            #expect(report.problems.contains { $0.contains("missing") })
            #expect(report.affectedFiles.contains { $0.hasSuffix("Documents/one.bin") })
            try fixture.write("Documents/keep.txt", [1])
            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(
                    app: BackupFixture.app, snapshot: try repository.snapshot(matching: nil), from: repository,
                    into: fixture.home)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(error?.message.contains("missing") == true)
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/keep.txt")))
        }
    }

    @Test func aTruncatedIndexIsAClearError() async throws {
        try await BackupFixture.with { fixture in
            _ = try Self.backedUp(fixture)
            let index = try FileManager.default.contentsOfDirectory(atPath: fixture.repositoryPath + "/index")
            let path = fixture.repositoryPath + "/index/" + (index.first ?? "")
            #expect(truncate(path, 10) == 0)
            let repository = try fixture.repository()
            let report = try await Checker.check(repository, readingData: false)
            #expect(report.problems.contains { $0.contains("index/") && $0.contains("truncated") })
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(error?.message.contains("index/") == true)
        }
    }

    @Test func aWrongOrMissingPasswordIsAClearError() async throws {
        try await BackupFixture.with { fixture in
            _ = try Self.backedUp(fixture, password: "right")
            let storage = try LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath)
            for password: String? in ["wrong", nil] {
                let error = failure { () throws(SandboxError) in
                    _ = try Repository.open(storage, password: password.map { Array($0.utf8) })
                }
                #expect(error?.code == .wrongPassword)
            }
            // Encrypted at rest: no blob holds a file's bytes.
            let plain = try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/one.bin")))
            let repository = try await Repository.open(storage, password: Array("right".utf8))
            #expect(throws: TestFailure.self) { try Self.blobPath(of: "Documents/one.bin", fixture, repository) }
            #expect(!plain.isEmpty)
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
        }
    }

    @Test func pruneKeepsTheLastSnapshotsAndRemovesOnlyUnreferencedBlobs() async throws {
        try await BackupFixture.with { fixture in
            let repository = try Self.backedUp(fixture)
            #expect(unlink(fixture.hostPath("Documents/one.bin")) == 0)
            try fixture.write("Documents/three.bin", ChunkerTests.pseudoRandom(50_000, seed: 13))
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let report = try await Pruner.prune(repository, keepingLast: 1)
            #expect(report.snapshotsRemoved == 1)
            #expect(report.blobsRemoved >= 1)
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
            try fixture.write("Documents/three.bin", [0])
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                into: fixture.home)
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/three.bin"))).count == 50_000)
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Documents/one.bin")))
        }
    }

    /// A backup is refused while a live prune holds the exclusive lock; a prune's lock left by a
    /// process that is gone holds nothing back, nor does the exclusive lock an older version's
    /// backup takes (backups only add, and run together).
    @Test func aBackupIsRefusedWhileAPruneHoldsTheLockButNotBesideAnotherBackup() async throws {
        try await BackupFixture.with { fixture in
            let repository = try Self.backedUp(fixture)
            // A lock held by a live process (this one) on this boot.
            let record = """
                {"bootID":"\(try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))","hostname":"\(ProcessInfo.processInfo.hostName)","operation":"prune","pid":\(getpid()),"time":"2026-01-01T00:00:00Z"}
                """
            let exclusive = URL(fileURLWithPath: fixture.repositoryPath + "/locks/exclusive")
            try Data(record.utf8).write(to: exclusive)
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            }
            #expect(error?.code == .repositoryLocked)
            #expect(
                error?.message.contains("is being pruned by a prune (pid \(getpid()) on") == true,
                "\(String(describing: error))")
            #expect(try repository.storage.list(.lock).map(\.name) == ["exclusive"], "the refused backup left no lock")
            // The same lock left by a process that is gone holds nothing back.
            let stale = record.replacingOccurrences(of: "\"pid\":\(getpid())", with: "\"pid\":999999")
            try Data(stale.utf8).write(to: exclusive)
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            // An older version's backup, live: this one runs beside it.
            try Data(record.replacingOccurrences(of: "\"prune\"", with: "\"backup\"").utf8).write(to: exclusive)
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(try await repository.snapshots().count == 3)
            #expect(try repository.storage.list(.lock).map(\.name) == ["exclusive"], "its shared lock is gone")
        }
    }
}
