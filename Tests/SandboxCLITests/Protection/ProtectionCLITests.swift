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

extension CLI {
    /// Runs `sandbox ARGUMENTS…` with `input` on standard input.
    func input(_ input: String, _ arguments: String...) async throws -> ProgramOutput {
        try await Self.program.run(
            arguments, environment: ["SANDBOX_HOME": home], input: Array(input.utf8), outputIn: scratch)
    }
}
