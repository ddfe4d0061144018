import Foundation
import SandboxCore
import Testing

@testable import SandboxBackup

/// A lock made on another host (a repository in S3 shared by machines) cannot be judged by its
/// pid: it holds until its expiry, which its holder pushes forward as it works.
@Suite struct LockExpiryTests {
    static func foreignLock(expiringIn seconds: TimeInterval) -> [UInt8] {
        var record = LockRecord.current(operation: "backup")
        record.hostname = "another-host.example"
        record.expires = Date().addingTimeInterval(seconds)
        return RepositoryJSON.encode(record)
    }

    @Test func aLockFromAnotherHostHoldsUntilItExpires() async throws {
        try await BackupFixture.with { fixture in
            let storage = try fixture.repository().storage
            _ = try storage.putIfAbsent(Self.foreignLock(expiringIn: 600), as: LockRecord.name)
            let refused = failure { () throws(SandboxError) in
                _ = try RepositoryLock.acquire(storage, operation: "prune")
            }
            #expect(refused?.code == .repositoryLocked)
            #expect(refused?.message.contains("another-host.example") == true)
            try storage.replace(Self.foreignLock(expiringIn: -1), as: LockRecord.name)
            let lock = try RepositoryLock.acquire(storage, operation: "prune")
            let holder = try RepositoryLock.holder(of: LockRecord.name, in: storage)
            #expect(holder?.hostname != "another-host.example")
            try lock.release()
        }
    }

    @Test func aHolderRefreshesItsExpiryWhenDue() async throws {
        try await BackupFixture.with { fixture in
            let storage = try fixture.repository().storage
            let lock = try RepositoryLock.acquire(storage, operation: "backup")
            let first = try RepositoryLock.holder(of: LockRecord.name, in: storage)?.expires
            try lock.refreshIfDue()  // not yet due: unchanged
            #expect(try RepositoryLock.holder(of: LockRecord.name, in: storage)?.expires == first)
            try lock.release()
        }
    }
}
