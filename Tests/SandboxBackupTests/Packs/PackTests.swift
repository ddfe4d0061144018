import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Format 4: blobs in packs, read back by range, deduplicated across backups.
@Suite struct PackTests {
    /// The packs the repository's indexes list.
    static func packs(_ repository: Repository) throws -> [IndexedPack] {
        try repository.storage.list(.index).flatMap { try repository.loadIndexContents($0).packs }
    }

    /// The host path of pack `id` in the fixture's repository.
    static func path(of id: BlobKey, in fixture: BackupFixture) -> String {
        fixture.repositoryPath + "/data/" + String(id.hex.prefix(2)) + "/" + id.hex
    }

    @Test func tenThousandSmallFilesMakeAFewDozenObjectsAndRestoreByteIdentical() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<10_000 {
                try fixture.write("Documents/f\(index / 100)/\(index).txt", Array("file \(index)\n".utf8))
            }
            let repository = try fixture.repository()
            let before = try TreeDescription(fixture.container.homeDirectory)
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let data = try repository.storage.list(.data).count
            let index = try repository.storage.list(.index).count
            #expect(data <= 4, "\(data) data objects for 10,000 files")  // a data pack and a tree pack
            #expect(index == 1)
            #expect(try Self.packs(repository).allSatisfy { Set($0.blobs.map(\.entry.kind)).count == 1 })
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/f7"))
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
        }
    }

    @Test func anIncrementalBackupStoresOnlyWhatChangedAndBothSnapshotsRestore() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<6 {
                try fixture.write("Documents/big\(index).bin", ChunkerTests.pseudoRandom(3 << 20, seed: UInt64(index)))
            }
            let repository = try fixture.repository()
            let first = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let firstTree = try TreeDescription(fixture.container.homeDirectory)
            let packsBefore = try Self.packs(repository).count
            #expect(packsBefore >= 3, "18 MiB of data in packs of 8 MiB, and a tree pack")
            try fixture.write("Documents/big2.bin", ChunkerTests.pseudoRandom(3 << 20, seed: 99))
            try fixture.write("Documents/new.txt", Array("new".utf8))
            let second = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(second.bytesStored < 4 << 20, "\(second.bytesStored) bytes stored for 3 MiB changed")
            #expect(try Self.packs(repository).count <= packsBefore + 2)
            let secondTree = try TreeDescription(fixture.container.homeDirectory)
            // A fresh process's view (no index cached): the second backup found the first's blobs.
            let reopened = try fixture.repository()
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await reopened.snapshot(matching: first.snapshot),
                from: reopened, into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == firstTree)
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await reopened.snapshot(matching: second.snapshot),
                from: reopened, into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == secondTree)
            #expect(try await Checker.check(reopened, readingData: true).isHealthy)
            // Prune the first: the pack holding only big2's old chunks goes, the rest restores.
            let pruned = try await Pruner.prune(reopened, keepingLast: 1)
            #expect(pruned.blobsRemoved >= 1 && pruned.bytesRemoved > 0)
            #expect(try await Checker.check(try fixture.repository(), readingData: true).isHealthy)
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await reopened.snapshot(matching: second.snapshot),
                from: try fixture.repository(), into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == secondTree)
        }
    }

    @Test func anEncryptedRepositoryPacksAndReadsBack() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<300 { try fixture.write("Documents/\(index).txt", Array("secret \(index)".utf8)) }
            let repository = try fixture.repository(password: "pw")
            let before = try TreeDescription(fixture.container.homeDirectory)
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(try repository.storage.list(.data).count == 2)
            for pack in try Self.packs(repository) {
                let bytes = try repository.storage.get(ObjectName(.data, pack.id.hex))
                #expect(Int64(bytes.count) == pack.impliedSize(sealOverhead: 28))
                #expect(!bytes.contains(subsequence: Array("secret 1".utf8)))
            }
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/7.txt"))
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
        }
    }

    @Test func aPackNoIndexListsIsUnreferencedNotDamageAndPruneRemovesIt() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("a".utf8))
            let repository = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            // What a backup killed before its index leaves.
            let orphan = try repository.writePack(
                FinishedPack(
                    kind: .data, blobs: [9, 9],
                    entries: [
                        PackEntry(
                            kind: .data, compression: 0, length: 2, uncompressedLength: 2,
                            id: try #require(BlobKey(hex: String(repeating: "7", count: 64))))
                    ]))
            let check = try await Checker.check(repository, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
            #expect(check.unreferencedObjects == [ObjectName(.data, orphan.pack.id.hex).description])
            _ = try await Pruner.prune(repository, keepingLast: 1)
            #expect(try repository.storage.size(of: ObjectName(.data, orphan.pack.id.hex)) == nil)
            #expect(try await Checker.check(repository, readingData: true).unreferencedObjects.isEmpty)
        }
    }

    @Test func aRangeReadPastTheEndIsDamageNamingTheObject() throws {
        try SandboxTesting.ScratchDirectory.with { scratch in
            let storage = try LocalRepositoryStorage.creatingLayout(atHostPath: scratch.appending("repo"))
            let name = ObjectName(.data, String(repeating: "a", count: 64))
            _ = try storage.putIfAbsent([0, 1, 2, 3, 4, 5], as: name)
            #expect(try storage.get(name, range: 2..<5) == [2, 3, 4])
            #expect(try storage.get(name, range: 6..<6) == [])
            let error = failure { () throws(SandboxError) in _ = try storage.get(name, range: 4..<7) }
            #expect(
                error?.code == .repositoryDamaged && error?.path == name.description, "\(String(describing: error))")
            let missing = failure { () throws(SandboxError) in
                _ = try storage.get(ObjectName(.data, String(repeating: "b", count: 64)), range: 0..<1)
            }
            #expect(missing?.code == .notFound)
        }
    }

    /// The in-memory index of 1,000,000 blobs is tens of MiB (48 bytes an entry), and finds each.
    @Test func theIndexOfAMillionBlobsIsCompact() throws {
        var contents = IndexContents()
        var blobs: [IndexedBlob] = []
        blobs.reserveCapacity(1_000_000)
        var generator = SystemRandomNumberGenerator()
        var keys: [BlobKey] = []
        for number in 0..<1_000_000 {
            // 32 random bytes from four words (a byte at a time takes minutes in a debug build).
            var words: (UInt64, UInt64, UInt64, UInt64) = (
                generator.next(), generator.next(), generator.next(), generator.next()
            )
            let key = withUnsafeBytes(of: &words) { BlobKey(bytes: $0) }
            if number % 100_000 == 0 { keys.append(key) }
            blobs.append(
                IndexedBlob(
                    entry: PackEntry(kind: .data, compression: 0, length: 100, uncompressedLength: 72, id: key),
                    offset: UInt32(number % 1000) * 100))
        }
        for start in stride(from: 0, to: blobs.count, by: 1000) {
            contents.packs.append(
                IndexedPack(
                    id: [UInt8](repeating: UInt8(start % 251), count: 32).withUnsafeBytes { BlobKey(bytes: $0) },
                    blobs: Array(blobs[start..<(start + 1000)])))
        }
        var index = BlobIndex()
        index.add(contents)
        index.finish()
        #expect(index.count == 1_000_000)
        for key in keys { #expect(index.location(of: key)?.uncompressedLength == 72) }
        #expect(MemoryLayout<BlobKey>.stride == 32)
        // What the tables reserve, not RSS: other tests allocate in this process at the same time.
        #expect(index.reservedBytes < 64 << 20, "the index reserves \(index.reservedBytes >> 20) MiB")
    }
}

extension [UInt8] {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }
}
