import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

@Suite struct CopyTests {
    /// What a restore of `app` must give back (what a backup leaves out, left out).
    static func description(_ fixture: BackupFixture) throws -> TreeDescription {
        try TreeDescription(fixture.container.homeDirectory) {
            $0.hasPrefix("Library/Caches/") || $0.hasPrefix("tmp/") || $0.contains("excluded") || $0.contains("exdir")
                || RoundTripTests.isLeftOut($0)
        }
    }

    static func open(_ path: String, password: String?) throws -> Repository {
        try Repository.openOrCreate(
            try LocalRepositoryStorage.creatingLayout(atHostPath: path), password: password.map { Array($0.utf8) })
    }

    /// Empties the container, restores the latest snapshot of `repository` into it and returns
    /// what it then holds.
    static func restored(_ fixture: BackupFixture, from repository: Repository) async throws -> TreeDescription {
        try FileManager.default.removeItem(atPath: fixture.hostPath("Documents"))
        try fixture.write("Documents/new.txt", [9])
        _ = try await Restore.run(
            app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
            into: fixture.home)
        return try description(fixture)
    }

    @Test func anEncryptedCopyRestoresByteForByteAndCopyingAgainCopiesNothing() async throws {
        try await BackupFixture.with { fixture in
            try RoundTripTests.populate(fixture)
            let before = try Self.description(fixture)
            let source = try fixture.repository(password: "source")
            let backup = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: source)
            let destinationPath = fixture.scratch.appending("copy")
            let destination = try Self.open(destinationPath, password: "destination")
            let report = try await SnapshotCopy.run(from: source, to: destination)
            #expect(report.copied.map(\.source) == [backup.snapshot])
            #expect(report.blobsRead > 0)
            let copy = try await destination.snapshot(matching: nil)
            let original = try await source.snapshot(matching: nil)
            #expect(copy.record.original == backup.snapshot)
            #expect(copy.record.time == original.record.time && copy.record.hostname == original.record.hostname)
            // Each repository names blobs under its own key: the trees were rewritten.
            #expect(copy.record.apps[0].tree != original.record.apps[0].tree)
            #expect(try await Self.restored(fixture, from: destination) == before)
            let check = try await Checker.check(destination, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
            // Copying again reads and writes nothing.
            let files = try FileManager.default.subpathsOfDirectory(atPath: destinationPath + "/data").count
            let again = try await SnapshotCopy.run(
                from: source, to: try Self.open(destinationPath, password: "destination"))
            #expect(again.copied.isEmpty && again.alreadyCopied == [backup.snapshot] && again.blobsRead == 0)
            #expect(try FileManager.default.subpathsOfDirectory(atPath: destinationPath + "/data").count == files)
            #expect(try await destination.snapshots().count == 1)
        }
    }

    @Test func unencryptedToEncryptedAndBackGivesTheSameBlobs() async throws {
        try await BackupFixture.with { fixture in
            try RoundTripTests.populate(fixture)
            let before = try Self.description(fixture)
            let source = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: source)
            let encrypted = try Self.open(fixture.scratch.appending("encrypted"), password: "pw")
            #expect(try await SnapshotCopy.run(from: source, to: encrypted).copied.count == 1)
            let back = try Self.open(fixture.scratch.appending("back"), password: nil)
            // Copying the copy: its original is the first snapshot, so the source says it is held.
            #expect(try await SnapshotCopy.run(from: encrypted, to: back).copied.count == 1)
            #expect(try await SnapshotCopy.run(from: back, to: source).alreadyCopied.count == 1)
            let first = try await source.snapshot(matching: nil)
            let last = try await back.snapshot(matching: nil)
            // Unencrypted repositories name blobs alike: the round trip gives back the same tree.
            #expect(last.record.apps.map(\.tree) == first.record.apps.map(\.tree))
            #expect(try await Self.restored(fixture, from: back) == before)
            #expect(try await Checker.check(back, readingData: true).isHealthy)
        }
    }

    @Test func aDamagedSourceBlobIsNamedAndTheDestinationGetsNoSnapshot() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/big.bin", ChunkerTestsBytes.make(3 << 20, seed: 11))
            let source = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: source)
            // The largest pack holds the file's chunks: one byte in its middle damages one blob.
            let data = fixture.repositoryPath + "/data"
            let packs = try FileManager.default.subpathsOfDirectory(atPath: data).map { data + "/" + $0 }
            let sizes = try packs.map { ($0, try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0) }
            let largest = try #require(sizes.max { $0.1 < $1.1 })
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: largest.0)))
            bytes[largest.1 / 3] ^= 0xFF
            try Data(bytes).write(to: URL(fileURLWithPath: largest.0))
            let destination = try Self.open(fixture.scratch.appending("copy"), password: "pw")
            let error = await #expect(throws: SandboxError.self) {
                _ = try await SnapshotCopy.run(from: try fixture.repository(), to: destination)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(error?.message.contains("does not match its id") == true, "\(String(describing: error))")
            #expect(try await destination.snapshots().isEmpty)
        }
    }

    /// The command: no scratch file (its TMPDIR is a folder it may not write), an encrypted source
    /// copied into a new encrypted repository.
    @Test func theCommandWritesNoScratchFile() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("first".utf8))
            try Array("pw\n".utf8).withUnsafeBytes {
                try Data($0).write(to: URL(fileURLWithPath: fixture.scratch.appending("pw")))
            }
            let source = try fixture.repository(password: "pw")
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: source)
            let temporary = fixture.scratch.appending("tmp")
            #expect(mkdir(temporary, 0o500) == 0)
            let destination = fixture.scratch.appending("copy")
            let run = try await BuiltProgram("sandbox").start(
                [
                    "backup", "copy", fixture.repositoryPath, destination, "--password-file",
                    fixture.scratch.appending("pw"),
                    "--to-password-file", fixture.scratch.appending("pw"),
                ],
                environment: ["SANDBOX_HOME": fixture.home.location, "TMPDIR": temporary],
                outputIn: fixture.scratch.path
            ).finish()
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("copied as"), "\(run.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
            #expect(try await Self.open(destination, password: "pw").snapshots().count == 1)
        }
    }
}

/// A copy into an S3 repository, against a real Ceph RADOS Gateway: in ``S3RepositoryTests``, whose
/// gateway it shares (a second suite with its own ``CephGatewayScope`` starts a second cluster at
/// the same time, and one of the two fails to start).
extension S3RepositoryTests {
    @Test func aCopyToTheGatewayRestoresByteForByteAndChecksClean() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            try RoundTripTests.populate(fixture)
            let before = try CopyTests.description(fixture)
            let source = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: source)
            let address = try gateway.newRepository(prefix: "copies")
            let destination = try S3RepositoryTests.open(address, gateway, password: "pw")
            #expect(try await SnapshotCopy.run(from: source, to: destination).copied.count == 1)
            let check = try await Checker.check(destination, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
            #expect(try await CopyTests.restored(fixture, from: destination) == before)
        }
    }
}
