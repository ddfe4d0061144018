import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxBackup

/// `restore --include` coordinates as a restore, around the renames only: an app presenting the
/// container lets go while the included item is still the old one and finds the restored one
/// after; a program under `sandbox run` makes it refuse before any work.
@Suite struct PartialRestoreCoordinationTests {
    @Test func anAppLetsGoBeforeTheRenameAndFindsTheRestoredItemAfter() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/sub/kept.txt", Array("backed up".utf8))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/sub/later.txt", Array("after the backup".utf8))
            let home = fixture.home
            let seen = Mutex<[String]>([])
            let presenter = try ContainerPresenter(
                home: home, app: BackupFixture.app, kind: .app, description: "an editor", confirmsReacquisition: true
            ) { notice in
                let names: String
                do {
                    let sub = try home.container(for: BackupFixture.app).root.contentsOfDirectory(
                        at: ContainerPath("Documents/sub"))
                    names = sub.map(\.name).sorted().joined(separator: ",")
                } catch {
                    names = "\(error)"
                }
                seen.withLock { $0.append("\(notice.operation.rawValue) \(notice.phase.rawValue): \(names)") }
            }
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: report.snapshot),
                including: ["Documents/sub"], from: repository, into: home)
            #expect(
                seen.withLock { $0 }.suffix(2) == [
                    "restore will: kept.txt,later.txt", "restore did: kept.txt",
                ],
                "\(seen.withLock { $0 })")
            presenter.close()
        }
    }

    @Test func aProgramUnderSandboxRunMakesItRefuseBeforeItsWork() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/kept.txt", Array("backed up".utf8))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/kept.txt", Array("after the backup".utf8))
            let program = try ContainerPresenter(
                home: fixture.home, app: BackupFixture.app, kind: .run, description: "sandbox run python3")
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            let refused = await #expect(throws: SandboxError.self) {
                _ = try await Restore.run(
                    app: BackupFixture.app, snapshot: snapshot, including: ["Documents/kept.txt"], from: repository,
                    into: fixture.home)
            }
            #expect(refused?.code == .containerInUse)
            #expect(
                try String(contentsOfFile: fixture.hostPath("Documents/kept.txt"), encoding: .utf8)
                    == "after the backup")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.hostPath("Documents"))
            #expect(!names.contains { $0.hasPrefix(Restore.itemStagePrefix) }, "no stage left: \(names)")
            program.close()
        }
    }
}
