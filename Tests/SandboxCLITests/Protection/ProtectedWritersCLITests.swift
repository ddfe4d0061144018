import Foundation
import Glibc
import SandboxTesting
import Testing

/// Every writer of the command line honours a folder's default protection class (issue 26, item
/// 14): `put`, `cp` and `mv` into `Documents` of class `complete` seal the file (its bytes on
/// disk are not the plaintext, `cat` gives it back), and while the device is locked they are
/// refused with `protected-data-unavailable`, writing nothing in the clear.
@Suite("Writers honour a folder's protection class")
struct ProtectedWritersCLITests {
    static let app = ProtectionCLITests.app
    static let secret = "the launch codes are 0000\n"

    /// A home with `app`, a passcode, and `Documents` of default class `complete`.
    static func withProtectedDocuments(_ body: (CLI) async throws -> Void) async throws {
        try await ProtectionCLITests.with { cli in
            #expect(try await cli.input("\n2468\n", "passcode", "set").status == 0)
            let folder = try await cli.input(
                "", "write", app, "Documents", "--default-for-folder", "--protection", "complete")
            #expect(folder.status == 0, "\(folder.stderr)")
            try await body(cli)
        }
    }

    static func onDisk(_ cli: CLI, _ relative: String) -> String? {
        FileManager.default.contents(atPath: "\(cli.home)/Containers/Data/\(app)/\(relative)").map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Checks that `relative` is sealed with `complete` and reads back as the secret.
    static func expectSealed(_ cli: CLI, _ relative: String) async throws {
        let stored = try #require(onDisk(cli, relative), "nothing at \(relative)")
        #expect(!stored.contains("launch codes"), "\(relative) is plaintext on disk")
        #expect(try await cli.run("cat", app, relative).stdout == secret)
        #expect(try await cli.run("stat", app, relative).stdout.contains("protection: complete"))
    }

    @Test("put, cp and mv into a complete folder seal the file while unlocked")
    func unlockedWritersSeal() async throws {
        try await Self.withProtectedDocuments { cli in
            let host = cli.scratch + "/codes.txt"
            try Data(Self.secret.utf8).write(to: URL(fileURLWithPath: host))
            let put = try await cli.run("put", Self.app, host, "Documents/put.txt")
            #expect(put.status == 0, "\(put.stderr)")
            try await Self.expectSealed(cli, "Documents/put.txt")

            #expect(try await cli.input(Self.secret, "write", Self.app, "tmp/plain.txt").status == 0)
            #expect(Self.onDisk(cli, "tmp/plain.txt") == Self.secret)  // tmp has no class: plain
            let copy = try await cli.run("cp", Self.app, "tmp/plain.txt", "Documents/copied.txt")
            #expect(copy.status == 0, "\(copy.stderr)")
            try await Self.expectSealed(cli, "Documents/copied.txt")
            let move = try await cli.run("mv", Self.app, "tmp/plain.txt", "Documents/moved.txt")
            #expect(move.status == 0, "\(move.stderr)")
            try await Self.expectSealed(cli, "Documents/moved.txt")
            #expect(Self.onDisk(cli, "tmp/plain.txt") == nil)
        }
    }

    @Test("a large put (several stripes, a segment boundary) seals and reads back whole")
    func largePutRoundTrips() async throws {
        try await Self.withProtectedDocuments { cli in
            let host = cli.scratch + "/large.bin"
            // 2 MiB + 64 KiB: more than two stripes of 16 segments, ending on a segment boundary.
            let bytes = (0..<(2 << 20) + (64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
            try Data(bytes).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.run("put", Self.app, host, "Documents/large.bin").status == 0)
            let stored = try #require(
                FileManager.default.contents(atPath: "\(cli.home)/Containers/Data/\(Self.app)/Documents/large.bin"))
            #expect(Array(stored) != bytes && stored.count > bytes.count)
            let copy = cli.scratch + "/large.out"
            let cat = try await BuiltProgram(path: "/bin/sh").run(
                ["-c", "exec \"$0\" cat \(Self.app) Documents/large.bin > '\(copy)'", try CLI.program.path],
                environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch)
            #expect(cat.status == 0, "\(cat.stderr)")
            #expect(FileManager.default.contents(atPath: copy).map(Array.init) == bytes)
        }
    }

    @Test("while locked, put, cp and mv into a complete folder are refused and write nothing")
    func lockedWritersRefuse() async throws {
        try await Self.withProtectedDocuments { cli in
            let host = cli.scratch + "/codes.txt"
            try Data(Self.secret.utf8).write(to: URL(fileURLWithPath: host))
            #expect(try await cli.input(Self.secret, "write", Self.app, "tmp/plain.txt").status == 0)
            #expect(try await cli.run("lock").status == 0)
            for arguments in [
                ["put", Self.app, host, "Documents/put.txt"],
                ["cp", Self.app, "tmp/plain.txt", "Documents/copied.txt"],
                ["mv", Self.app, "tmp/plain.txt", "Documents/moved.txt"],
            ] {
                let refused = try await cli.run(arguments)
                #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
                #expect(refused.stderr.contains("[protected-data-unavailable]"), "\(arguments): \(refused.stderr)")
            }
            for name in ["put.txt", "copied.txt", "moved.txt"] { #expect(Self.onDisk(cli, "Documents/\(name)") == nil) }
            #expect(Self.onDisk(cli, "tmp/plain.txt") == Self.secret)  // mv refused: the file stayed
            // A folder without a class still takes a plain file while locked.
            #expect(try await cli.run("put", Self.app, host, "Library/Caches/codes.txt").status == 0)
        }
    }
}
