import Foundation
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Four devices back up into one repository folder at once (issue 30): none is refused for the
/// lock, the repository checks clean, each device restores its own app, and after a prune the
/// file all four hold is stored once.
@Suite struct FleetTests {
    @Test func fourDevicesBackUpIntoOneFolderAtOnce() async throws {
        try await BackupFixture.with { fixture in
            let fleet = try Fleet(fixture, devices: 4, repository: fixture.repositoryPath)
            try await Self.backUpCheckRestoreAndPrune(fleet) { try fixture.repository() }
        }
    }

    /// The fleet's steps, on any repository (`open` opens it through the package).
    static func backUpCheckRestoreAndPrune(_ fleet: Fleet, open: () throws -> Repository) async throws {
        let backups = try await fleet.backUpAtOnce()
        for (index, backup) in backups.enumerated() {
            #expect(backup.status == 0, "device \(index) (none is refused for the lock): \(backup.stderr)")
        }
        let prefixes = try backups.map(Fleet.snapshotPrefix)
        let repository = try open()
        #expect(try await repository.snapshots().count == 4)
        let before = try await check(fleet)
        // Backups that ran at once may each have stored the shared file: at most once a device.
        let copies = try Fleet.copiesOfSharedChunks(in: repository)
        #expect(!copies.isEmpty && copies.allSatisfy { (1...4).contains($0) }, "\(copies)")
        #expect(before.duplicateBlobs >= copies.reduce(0) { $0 + $1 - 1 }, "\(before.duplicateBlobs) \(copies)")
        try await fleet.restoreEachDevice(prefixes)
        try await fleet.restoreEachDevice()  // each device's own latest, though another's is newer
        // Each device is a group of its own: the last snapshot of each is kept. A second copy counts
        // as unused; `--max-unused 0` rewrites every pack holding one (at the default 5 %, a copy
        // in a pack otherwise used may stay).
        let prune = try await fleet.run(
            ["prune", fleet.repository, "--keep-last", "1", "--max-unused", "0"], device: 0)
        #expect(prune.status == 0, "\(prune.stderr)")
        let pruned = try open()
        #expect(try await pruned.snapshots().count == 4, "every device's snapshot is kept")
        #expect(try Fleet.copiesOfSharedChunks(in: pruned).allSatisfy { $0 == 1 }, "the shared file is stored once")
        #expect(try await check(fleet).duplicateBlobs == 0)
    }

    /// `sandbox check --read-data --json`, expected clean.
    static func check(_ fleet: Fleet) async throws -> CheckReport {
        let check = try await fleet.run(["check", fleet.repository, "--read-data", "--json"], device: 0)
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let report = try JSONDecoder().decode(CheckReport.self, from: Data(check.stdout.utf8))
        #expect(report.isHealthy && report.snapshots == 4, "\(report.problems)")
        return report
    }
}
