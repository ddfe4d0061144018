import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A fleet on one bucket (issue 30): several devices back up into one S3 repository at once.
extension S3RepositoryTests {
    /// Four devices, each its own `SANDBOX_HOME`, run `sandbox backup` at once into one new
    /// encrypted `s3://` repository (they also create it together): all four succeed, `check
    /// --read-data` is clean, each device restores its own app, and after a prune the 8 MiB file
    /// all four hold is stored once.
    @Test func fourDevicesBackUpIntoOneBucketAtOnce() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            let address = try gateway.newRepository(prefix: "fleet")
            let fleet = try Fleet(
                fixture, devices: 4, repository: address, environment: gateway.environment, password: "fleet pw")
            try await FleetTests.backUpCheckRestoreAndPrune(fleet) {
                try Self.open(address, gateway, password: "fleet pw")
            }
            #expect(
                try gateway.storage(address).list(.key).count == 1, "the devices that lost the creation left no key")
        }
    }

    /// A prune is refused while a backup holds its lock, and a backup while a prune holds the
    /// exclusive one, each naming the other.
    @Test func aPruneAndABackupRefuseEachOtherOnTheGateway() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            let address = try gateway.newRepository()
            let fleet = try Fleet(fixture, devices: 1, repository: address, environment: gateway.environment)
            let first = try await fleet.run(["backup", BackupFixture.app.rawValue, address], device: 0)
            #expect(first.status == 0, "\(first.stderr)")
            let storage = try gateway.storage(address)
            let backup = try RepositoryLock.acquireShared(storage, operation: "backup")
            let prune = try await fleet.run(["prune", address, "--keep-last", "1"], device: 0)
            #expect(prune.status != 0)
            #expect(prune.stderr.contains("is in use by a backup (pid \(getpid())"), "\(prune.stderr)")
            try backup.release()
            let pruning = try RepositoryLock.acquireForPrune(storage)
            let refused = try await fleet.run(["backup", BackupFixture.app.rawValue, address], device: 0)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("is being pruned by a prune (pid \(getpid())"), "\(refused.stderr)")
            try pruning.release()
            #expect(try storage.list(.lock).isEmpty, "the refused commands left no lock")
            #expect(try await fleet.run(["prune", address, "--keep-last", "1"], device: 0).status == 0)
        }
    }
}
