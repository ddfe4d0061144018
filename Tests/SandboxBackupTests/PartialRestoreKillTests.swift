import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// SIGKILL at random moments of `restore --include Documents` in a real process: the folder is the
/// old one or the restored one, never a mix, and the rest of the container is untouched. Few
/// rounds: each also puts the old folder back.
@Suite(.serialized) struct PartialRestoreKillTests {
    @Test func aKilledIncludeRestoreLeavesTheOldItemOrTheNewOne() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            try KillTests.populate(fixture, variant: 5)
            let old = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository).snapshot
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/small"))
            try KillTests.populate(fixture, variant: 6)
            try fixture.write("Documents/only-new.txt", [1])
            let new = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository).snapshot
            try fixture.write("Library/untouched.txt", Array("the app's own write".utf8))
            let home = fixture.container.homeDirectory
            let isStage = { (relative: String) in relative.hasPrefix(Restore.itemStagePrefix) }
            func restore(_ id: String) throws -> TreeDescription {
                _ = try Restore.run(
                    app: BackupFixture.app, snapshot: try repository.snapshot(matching: id), including: ["Documents"],
                    from: repository, into: fixture.home)
                return try TreeDescription(home, leavingOut: isStage)
            }
            let after = try restore(new)
            let before = try restore(old)
            #expect(before != after)
            let arguments = [
                "restore-include", fixture.home.location, fixture.repositoryPath, BackupFixture.app.rawValue, new,
                "Documents",
            ]
            var full = try await KillTests.duration(of: arguments, fixture)
            _ = try restore(old)
            let rounds = 6
            let (killed, ran) = try await KillTests.killRounds(rounds) { round in
                let program = try KillTests.start(fixture, arguments)
                program.signal(SIGKILL, after: KillTests.randomDelay(upTo: full))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal != SIGKILL { full = KillTests.shortest(full, program) }
                let now = try TreeDescription(home, leavingOut: isStage)
                #expect(now == before || now == after, "round \(round): a mix of old and new")
                if now == after { _ = try restore(old) }
                return exit.signal == SIGKILL
            }
            #expect(killed > rounds / 3, "only \(killed) of \(ran) runs were killed mid-way")
            // The staging folders of killed restores are swept by the next one there.
            _ = try restore(new)
            let left = try FileManager.default.contentsOfDirectory(atPath: home)
            #expect(!left.contains { isStage($0) }, "\(left)")
        }
    }
}
