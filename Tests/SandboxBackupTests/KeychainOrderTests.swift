import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxStore
import SandboxTesting
import SystemPackage
import Testing

/// A restore changes the container and the keychain as one: a failure or a kill at any moment
/// leaves the old container with the old keychain, or the new with the new.
@Suite(.serialized) struct KeychainOrderTests {
    /// An app of its own, so that the injected faults touch no other test's keychain.
    static let app = BackupFixture.identifier("com.example.keychain-order")

    static func secret(_ home: SandboxHome) throws -> String? {
        try Keychain(home: home, app: app).get("version")
    }

    /// Two snapshots: "old" (a file and the keychain saying old), then "new"; the container and
    /// keychain are left at "old" again. Returns the snapshots' ids.
    static func prepare(_ fixture: BackupFixture) throws -> (repository: Repository, old: String, new: String) {
        let container = try fixture.home.createContainer(for: app)
        let repository = try fixture.repository()
        func state(_ text: String) throws -> String {
            try container.root.writeContents(Array(text.utf8), to: ContainerPath("Documents/version.txt"))
            try Keychain(home: fixture.home, app: app).set(text, key: "version")
            return try Backup.run(apps: [app], from: fixture.home, to: repository).snapshot
        }
        let old = try state("old")
        let new = try state("new")
        _ = try state("old")
        return (repository, old, new)
    }

    static func containerText(_ fixture: BackupFixture) throws -> String {
        let container = try fixture.home.container(for: app)
        return String(
            decoding: try container.root.readContents(of: ContainerPath("Documents/version.txt")), as: UTF8.self)
    }

    @Test func aKeychainWriteThatFailsLeavesTheOldContainerWithTheOldKeychain() async throws {
        try await BackupFixture.with { fixture in
            let (repository, _, new) = try Self.prepare(fixture)
            let fault = FaultInjection.inject(
                .ioError, into: ["write", "pwrite", "pwritev", "fsync", "linkat"],
                onPathsContaining: "\(Self.app.rawValue)/keychain.plist")
            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(
                    app: Self.app, snapshot: try repository.snapshot(matching: new), from: repository,
                    into: fixture.home)
            }
            fault.remove()
            #expect(fault.fired > 0)
            #expect(error != nil)
            #expect(try Self.containerText(fixture) == "old")
            #expect(try Self.secret(fixture.home) == "old")
            // And the restore, tried again, gives the new pair.
            _ = try await Restore.run(
                app: Self.app, snapshot: try await repository.snapshot(matching: new), from: repository,
                into: fixture.home)
            #expect(try Self.containerText(fixture) == "new")
            #expect(try Self.secret(fixture.home) == "new")
        }
    }

    /// SIGKILL during restores, 20 times: after each (and the recovery every restore and backup
    /// begins with), the container and the keychain are both old or both new.
    @Test func aKilledRestoreLeavesAConsistentPair() async throws {
        try await BackupFixture.with { fixture in
            let (repository, old, new) = try Self.prepare(fixture)
            let container = try fixture.home.container(for: Self.app)
            for index in 0..<100 {
                try container.root.createDirectory(
                    at: ContainerPath("Documents/many/\(index)"), withIntermediateDirectories: true)
                try container.root.writeContents(
                    ChunkerTests.pseudoRandom(20_000, seed: UInt64(index)),
                    to: ContainerPath("Documents/many/\(index)/f"))
            }
            let arguments = ["restore", fixture.home.location, fixture.repositoryPath, Self.app.rawValue]
            func restore(_ id: String) throws {
                _ = try Restore.run(
                    app: Self.app, snapshot: try repository.snapshot(matching: id), from: repository, into: fixture.home
                )
            }
            var full = try await KillTests.duration(of: arguments + [new], fixture)
            try restore(old)
            let (killed, ran) = try await KillTests.killRounds(20) { round in
                let program = try KillTests.start(fixture, arguments + [new])
                program.signal(SIGKILL, after: KillTests.randomDelay(upTo: full))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal != SIGKILL { full = KillTests.shortest(full, program) }
                try await Restore.recoverInterrupted(app: Self.app, in: fixture.home)
                let pair = (try Self.containerText(fixture), try Self.secret(fixture.home))
                #expect(pair == ("old", "old") || pair == ("new", "new"), "round \(round): \(pair)")
                if pair.0 == "new" { try restore(old) }
                return exit.signal == SIGKILL
            }
            #expect(killed > 20 / 3, "only \(killed) of \(ran) runs were killed mid-way")
        }
    }
}
