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
            // What the app saw of the live container when asked to let go, and after; answered on
            // the presenter's own thread (the suites beside this one may hold the pool).
            let seen = Mutex<[String]>([])
            // It confirms reacquisition: the restore returns only once it has looked again.
            let presenter = try ContainerPresenter(
                home: home, app: BackupFixture.app, kind: .app, description: "an editor", confirmsReacquisition: true
            ) { notice in
                let names: String
                do {
                    let documents = try home.container(for: BackupFixture.app).root.contentsOfDirectory(
                        at: ContainerPath("Documents"))
                    names = documents.map(\.name).sorted().joined(separator: ",")
                } catch {
                    names = "\(error)"
                }
                seen.withLock { $0.append("\(notice.operation.rawValue) \(notice.phase.rawValue): \(names)") }
            }
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: report.snapshot),
                from: repository, into: home)
            #expect(
                seen.withLock { $0 }.suffix(2) == [
                    "restore will: Inbox,kept.txt,later.txt", "restore did: Inbox,kept.txt",
                ],
                "\(seen.withLock { $0 })")
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

    @Test func aBackupWaitsForAnAppToPauseAndTellsItWhenDone() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("a".utf8))
            let repository = try fixture.repository()
            let home = fixture.home
            let seen = Mutex<[String]>([])
            let presenter = try ContainerPresenter(
                home: home, app: BackupFixture.app, kind: .app, description: "an editor"
            ) { notice in
                seen.withLock {
                    $0.append("\(notice.operation.rawValue) \(notice.phase.rawValue) \(notice.response.rawValue)")
                }
            }
            let report = try await Backup.run(apps: [BackupFixture.app], from: home, to: repository)
            // Answered when the handler returned; told of the end (the `did` may come a look later).
            #expect(await eventually(timeout: .seconds(30)) { seen.withLock { $0.count } == 2 })
            #expect(seen.withLock { $0 } == ["backup will relinquish", "backup did relinquish"])
            #expect(report.snapshot.isEmpty == false)
            presenter.close()
        }
    }
}
