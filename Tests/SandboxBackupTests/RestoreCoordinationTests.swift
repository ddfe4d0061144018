import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxBackup

/// A restore and a backup take part in coordination (CoordinationPolicy): an app presenting the
/// container lets go before the exchange and reopens the restored container after it; a program
/// under `sandbox run` makes a restore refuse before any work.
@Suite struct RestoreCoordinationTests {
    @Test func anAppLetsGoBeforeTheExchangeAndFindsTheRestoredContainerAfter() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/kept.txt", Array("backed up".utf8))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/later.txt", Array("after the backup".utf8))
            let home = fixture.home
            let presenter = try ContainerPresenter(
                home: home, app: BackupFixture.app, kind: .app, description: "an editor")
            // What the app saw of the live container when asked to let go, and after.
            let listener = Task { () throws -> [String] in
                var seen: [String] = []
                for await notice in presenter.notices {
                    let container = try home.container(for: BackupFixture.app)
                    let names = try container.root.contentsOfDirectory(at: ContainerPath("Documents")).map(\.name)
                        .sorted()
                    seen.append(
                        "\(notice.operation.rawValue) \(notice.phase.rawValue): \(names.joined(separator: ","))")
                    if notice.phase == .will {
                        try presenter.relinquished(notice)
                    } else if notice.operation == .restore {
                        return seen
                    }
                }
                return seen
            }
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: report.snapshot),
                from: repository, into: home)
            let seen = try await listener.value
            #expect(
                seen.suffix(2) == ["restore will: Inbox,kept.txt,later.txt", "restore did: Inbox,kept.txt"], "\(seen)")
            presenter.close()
        }
    }

    @Test func aProgramUnderSandboxRunMakesARestoreRefuseBeforeItsWork() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/kept.txt", Array("backed up".utf8))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/later.txt", Array("after the backup".utf8))
            let program = try ContainerPresenter(
                home: fixture.home, app: BackupFixture.app, kind: .run, description: "sandbox run python3")
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            let refused = await #expect(throws: SandboxError.self) {
                _ = try await Restore.run(
                    app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            }
            #expect(refused?.code == .containerInUse)
            #expect(refused?.message.contains("sandbox run python3 (pid \(getpid()))") == true)
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/later.txt")))
            let data = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(data == [BackupFixture.app.rawValue], "no stage left: \(data)")
            program.close()
        }
    }
}
