import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// SIGKILL at random moments to a real restore (`sandbox-backup-harness restore`) of a member of
/// an App Group: the group's container, and the app's, are each the old one or the new one.
@Suite(.serialized) struct AppGroupRestoreKillTests {
    /// A group container of a few MiB in a few hundred items, so the restore is killed in its middle.
    static func populate(_ shared: ConfinedRoot, variant: UInt64) throws {
        try shared.createDirectory(at: ContainerPath("small"), withIntermediateDirectories: true)
        for index in 0..<2 {
            try shared.writeContents(
                ChunkerTests.pseudoRandom(2 << 20, seed: variant * 10 + UInt64(index)),
                to: ContainerPath("big\(index).bin"))
        }
        for index in 0..<100 {
            try shared.writeContents(
                Array("item \(index) of variant \(variant)\n".utf8), to: ContainerPath("small/\(index).txt"))
        }
    }

    @Test func aKilledRestoreLeavesTheGroupOldOrNewNeverAMix() async throws {
        try await BackupFixture.with { fixture in
            let members = try AppGroupRestoreTests.Members(fixture)
            let app = members.today.identifier
            let repository = try fixture.repository()
            try Self.populate(members.shared(members.today), variant: 1)
            let old = try await Backup.run(apps: [app], from: fixture.home, to: repository).snapshot
            _ = try members.shared(members.today).removeItem(at: ContainerPath("small"), recursively: true)
            try Self.populate(members.shared(members.today), variant: 2)
            try members.shared(members.today).writeContents([1], to: ContainerPath("only-new.txt"))
            let new = try await Backup.run(apps: [app], from: fixture.home, to: repository).snapshot
            let groupPath = try members.shared(members.widget).hostPath
            func restore(_ id: String) throws -> TreeDescription {
                _ = try Restore.run(
                    app: app, snapshot: try repository.snapshot(matching: id), from: repository, into: fixture.home)
                return try TreeDescription(groupPath)
            }
            let after = try restore(new)
            let before = try restore(old)
            #expect(before != after)
            let arguments = ["restore", fixture.home.location, fixture.repositoryPath, app.rawValue, new]
            var full = try await KillTests.duration(of: arguments, fixture)
            _ = try restore(old)
            let (killed, ran) = try await KillTests.killRounds(8) { round in
                let program = try KillTests.start(fixture, arguments)
                program.signal(SIGKILL, after: KillTests.randomDelay(upTo: full))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal != SIGKILL { full = KillTests.shortest(full, program) }
                let now = try TreeDescription(groupPath)
                #expect(now == before || now == after, "round \(round): a mix of old and new in the group")
                if now == after { _ = try restore(old) }
                return exit.signal == SIGKILL
            }
            #expect(killed > 8 / 3, "only \(killed) of \(ran) runs were killed mid-way")
            // The staging directories of killed restores are swept by the next one.
            _ = try restore(new)
            let left = try FileManager.default.contentsOfDirectory(
                atPath: fixture.home.location + "/Containers/Shared/AppGroup")
            #expect(left == [AppGroupRestoreTests.group.rawValue], "\(left)")
        }
    }
}
