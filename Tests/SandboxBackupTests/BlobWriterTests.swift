import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

/// A storage whose data puts fail after `allowed` of them (a disk that fills up).
final class FailingDataStorage: RepositoryStorage {
    let base: any RepositoryStorage
    let remaining: Mutex<Int>

    init(_ base: any RepositoryStorage, allowing allowed: Int) {
        self.base = base
        remaining = Mutex(allowed)
    }

    var location: String { base.location }
    func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        if name.kind == .data {
            let allowed = remaining.withLock { value in
                value -= 1
                return value >= 0
            }
            guard allowed else { throw SandboxError(.noSpace, "No space left for '\(name)'.", path: name.description) }
        }
        return try base.putIfAbsent(bytes, as: name)
    }
    func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) { try base.replace(bytes, as: name) }
    func get(_ name: ObjectName) throws(SandboxError) -> [UInt8] { try base.get(name) }
    func size(of name: ObjectName) throws(SandboxError) -> Int64? { try base.size(of: name) }
    func list(_ kind: ObjectKind) throws(SandboxError) -> [ObjectName] { try base.list(kind) }
    func delete(_ name: ObjectName) throws(SandboxError) { try base.delete(name) }
    func synchronize() throws(SandboxError) { try base.synchronize() }
}

/// Blobs are sealed and written on other threads than the one that chunks: a write that fails
/// there still fails the backup, with its own error, before any index or snapshot is written.
@Suite struct BlobWriterTests {
    @Test func aBlobWriteThatFailsOnAWriterThreadFailsTheBackup() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<20 {
                try fixture.write("Documents/f\(index).bin", ChunkerTests.pseudoRandom(600_000, seed: UInt64(index)))
            }
            let storage = FailingDataStorage(try fixture.repository().storage, allowing: 7)
            let repository = try Repository.open(storage, password: nil)
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            }
            #expect(error?.code == .noSpace, "\(String(describing: error))")
            #expect(try fixture.repository().snapshots().isEmpty)
            #expect(try storage.list(.index).isEmpty)
            #expect(try storage.list(.lock).isEmpty)
            // Space again: the next backup completes and checks clean.
            _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            #expect(try Checker.check(try fixture.repository(), readingData: true).isHealthy)
        }
    }
}
