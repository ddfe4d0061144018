import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

/// A storage whose data puts fail after `allowed` of them (a disk that fills up).
final class FailingDataStorage: ForwardingStorage, @unchecked Sendable {
    let remaining: Mutex<Int>

    init(_ base: any RepositoryStorage, allowing allowed: Int) {
        remaining = Mutex(allowed)
        super.init(base)
    }

    override func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        if name.kind == .data {
            let allowed = remaining.withLock { value in
                value -= 1
                return value >= 0
            }
            guard allowed else { throw SandboxError(.noSpace, "No space left for '\(name)'.", path: name.description) }
        }
        return try super.putIfAbsent(bytes, as: name)
    }
}

/// Blobs are sealed and written on other threads than the one that chunks: a write that fails
/// there still fails the backup, with its own error, before any index or snapshot is written.
@Suite struct BlobWriterTests {
    @Test func aBlobWriteThatFailsOnAWriterThreadFailsTheBackup() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<20 {
                try fixture.write("Documents/f\(index).bin", ChunkerTests.pseudoRandom(600_000, seed: UInt64(index)))
            }
            let storage = FailingDataStorage(try fixture.repository().storage, allowing: 1)
            let repository = try await Repository.open(storage, password: nil)
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            }
            #expect(error?.code == .noSpace, "\(String(describing: error))")
            #expect(try await fixture.repository().snapshots().isEmpty)
            #expect(try storage.list(.index).isEmpty)
            #expect(try storage.list(.lock).isEmpty)
            // Space again: the next backup completes and checks clean.
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            #expect(try await Checker.check(try fixture.repository(), readingData: true).isHealthy)
        }
    }

    /// The writers name and deduplicate chunks: equal chunks hashed at once on two threads are
    /// stored once, the index lists each blob once, and every file still gets its own chunk ids.
    @Test func equalChunksInFlightTogetherAreStoredOnce() async throws {
        try await BackupFixture.with { fixture in
            let same = ChunkerTests.pseudoRandom(300_000, seed: 42)
            for index in 0..<40 { try fixture.write("Documents/same\(index).bin", same) }
            try fixture.write("Documents/other.bin", ChunkerTests.pseudoRandom(300_000, seed: 43))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            let indexed = try repository.storage.list(.index).count
            #expect(indexed == 1)
            // 2 files' contents + the tree + the manifest, in one data pack and one tree pack.
            let objects = try repository.storage.list(.data).count
            #expect(objects == 2, "\(objects) objects stored")
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
            try fixture.write("Documents/same0.bin", [1, 2, 3])
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            for index in [0, 17, 39] {
                let restored = try Data(
                    contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/same\(index).bin")))
                #expect(Array(restored) == same)
            }
        }
    }
}
