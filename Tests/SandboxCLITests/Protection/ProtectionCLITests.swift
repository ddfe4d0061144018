import Foundation
import Glibc
import SandboxTesting
import Testing

/// `sandbox passcode set`, `lock`, `unlock`, `write --protection`, `cat`, `stat` and `restart`, run
/// as processes: the lock state is shared through the user keyring, not through one process.
@Suite("Data protection from the command line")
struct ProtectionCLITests {
    static let app = "com.example.notes"

    /// Runs `body` with a home that has `app`; the keyring entries it made are removed after
    /// (`sandbox restart` forgets them), whatever `body` did.
    static func with(_ body: (CLI) async throws -> Void) async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", app)
            var failure: (any Error)?
            do { try await body(cli) } catch { failure = error }
            let restart = try await cli.run("restart")
            #expect(restart.status == 0, "keyring cleanup: \(restart.stderr)")
            if let failure { throw failure }
        }
    }

    @Test("passcode, write --protection complete, lock, cat refused, unlock, cat, stat, restart")
    func lockCycle() async throws {
        try await Self.with { cli in
            let secret = "the launch codes are 0000\n"
            #expect(try await cli.input("\n2468\n", "passcode", "set").status == 0)
            let write = try await cli.input(
                secret, "write", Self.app, "Documents/codes.txt", "--protection", "complete")
            #expect(write.status == 0, "\(write.stderr)")
            let onDisk = try String(
                contentsOfFile: "\(cli.home)/Containers/Data/\(Self.app)/Documents/codes.txt", encoding: .isoLatin1)
            #expect(!onDisk.contains("launch codes"))
            #expect(try await cli.run("cat", Self.app, "Documents/codes.txt").stdout == secret)
            #expect(try await cli.run("stat", Self.app, "Documents/codes.txt").stdout.contains("protection: complete"))
            #expect(try await cli.run("lock").status == 0)
            let locked = try await cli.run("cat", Self.app, "Documents/codes.txt")
            #expect(locked.status == 1)
            #expect(locked.stdout.isEmpty)
            #expect(locked.stderr.contains("[protected-data-unavailable]"), "\(locked.stderr)")
            let wrong = try await cli.input("1111\n", "unlock")
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("[passcode-incorrect]"), "\(wrong.stderr)")
            #expect(try await cli.input("2468\n", "unlock").status == 0)
            #expect(try await cli.run("cat", Self.app, "Documents/codes.txt").stdout == secret)
        }
    }

    @Test("until-first-user-authentication: readable while locked, not after restart until unlock")
    func untilFirstUnlock() async throws {
        try await Self.with { cli in
            #expect(try await cli.input("\n2468\n", "passcode", "set").status == 0)
            #expect(
                try await cli.input(
                    "mail\n", "write", Self.app, "Documents", "--default-for-folder", "--protection",
                    "until-first-user-authentication"
                ).status == 0)
            #expect(try await cli.input("mail\n", "write", Self.app, "Documents/mail").status == 0)
            #expect(try await cli.run("lock").status == 0)
            #expect(try await cli.run("cat", Self.app, "Documents/mail").stdout == "mail\n")
            #expect(try await cli.run("restart").status == 0)
            let afterRestart = try await cli.run("cat", Self.app, "Documents/mail")
            #expect(afterRestart.stderr.contains("since it restarted"), "\(afterRestart.stderr)")
            #expect(try await cli.input("2468\n", "unlock").status == 0)
            #expect(try await cli.run("cat", Self.app, "Documents/mail").stdout == "mail\n")
        }
    }
}

/// The same lock cycle with the keys in files (`SANDBOX_UNLOCKED_KEYS_DIR`), as where the kernel
/// has no keyring or a seccomp filter refuses `keyctl`.
@Suite("Data protection without the keyring")
struct UnlockedKeyFilesCLITests {
    @Test("keys live in a 0700 folder of 0600 files; lock removes complete's, restart all")
    func keyFiles() async throws {
        try await CLI.withTemporary { cli in
            let keys = cli.scratch + "/keys"
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: false)
            let environment = ["SANDBOX_HOME": cli.home, "SANDBOX_UNLOCKED_KEYS_DIR": keys]
            func run(_ input: String, _ arguments: String...) async throws -> ProgramOutput {
                try await CLI.program.run(
                    arguments, environment: environment, input: Array(input.utf8), outputIn: cli.scratch)
            }
            #expect(try await run("", "create", ProtectionCLITests.app).status == 0)
            #expect(try await run("\n2468\n", "passcode", "set").status == 0)
            let write = try await run(
                "secret\n", "write", ProtectionCLITests.app, "Documents/s", "--protection", "complete")
            #expect(write.status == 0, "\(write.stderr)")
            let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: keys).first)
            let classes = try FileManager.default.contentsOfDirectory(atPath: keys + "/" + folder).sorted()
            #expect(classes == ["complete", "complete-unless-open", "until-first-user-authentication"])
            let mode = try FileManager.default.attributesOfItem(atPath: keys + "/" + folder + "/complete")[
                .posixPermissions]
            #expect(mode as? Int == 0o600)
            #expect(try await run("", "cat", ProtectionCLITests.app, "Documents/s").stdout == "secret\n")
            #expect(try await run("", "lock").status == 0)
            let locked = try await run("", "cat", ProtectionCLITests.app, "Documents/s")
            #expect(locked.stderr.contains("[protected-data-unavailable]"), "\(locked.stderr)")
            #expect(try await run("2468\n", "unlock").status == 0)
            #expect(try await run("", "cat", ProtectionCLITests.app, "Documents/s").stdout == "secret\n")
            #expect(try await run("", "restart").status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: keys + "/" + folder).isEmpty)
        }
    }
}

/// A key folder someone else could read or fill is refused, never used.
@Suite("Data protection: a key folder that is not private")
struct SharedKeyFolderCLITests {
    @Test("a 0755 folder where the keys would go is permission-denied, and nothing is written in it")
    func refused() async throws {
        try await CLI.withTemporary { cli in
            let keys = cli.scratch + "/keys"
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: false)
            let environment = ["SANDBOX_HOME": cli.home, "SANDBOX_UNLOCKED_KEYS_DIR": keys]
            let program = try CLI.program
            #expect(
                try await program.run(
                    ["create", ProtectionCLITests.app], environment: environment, outputIn: cli.scratch
                ).status == 0)
            // The first run makes the key folder; widen it, as another user's planted folder would be.
            let first = try await program.run(
                ["passcode", "set"], environment: environment, input: Array("\n1\n".utf8), outputIn: cli.scratch)
            #expect(first.status == 0, "\(first.stderr)")
            let folder = keys + "/" + (try #require(try FileManager.default.contentsOfDirectory(atPath: keys).first))
            for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
                try FileManager.default.removeItem(atPath: folder + "/" + file)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
            let unlock = try await program.run(
                ["unlock"], environment: environment, input: Array("1\n".utf8), outputIn: cli.scratch)
            #expect(unlock.status == 1)
            #expect(unlock.stderr.contains("[permission-denied]"), "\(unlock.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        }
    }
}

extension CLI {
    /// Runs `sandbox ARGUMENTS…` with `input` on standard input.
    func input(_ input: String, _ arguments: String...) async throws -> ProgramOutput {
        try await Self.program.run(
            arguments, environment: ["SANDBOX_HOME": home], input: Array(input.utf8), outputIn: scratch)
    }
}
