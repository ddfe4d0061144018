import Foundation
import SandboxTesting
import Testing

/// `sandbox` links only its quick commands, with the Swift runtime static, and hands `share`,
/// `download`, `backup`… to `sandbox-extras` beside it: the hand-over must not show.
@Suite("sandbox and sandbox-extras")
struct ExtrasCLITests {
    static let extraCommands = [
        "download", "downloads", "fetch", "share", "backup", "snapshots", "check", "restore", "prune",
    ]

    @Test("sandbox --help lists every command, those of sandbox-extras with their abstracts")
    func helpListsExtraCommands() async throws {
        try await CLI.withTemporary { cli in
            let help = try await cli.run("--help")
            #expect(help.status == 0, "\(help.stderr)")
            for command in Self.extraCommands {
                #expect(help.stdout.contains("\n  \(command) "), "\(command) missing from:\n\(help.stdout)")
            }
            #expect(help.stdout.contains("Share an app's Documents folder over WebDAV"))
            #expect(help.stdout.contains("Back up apps' containers into a repository"))
        }
    }

    @Test(
        "an extra command's help, usage errors and exit status are its own",
        arguments: [("share", "--bind <bind>"), ("download", "--sha256 <sha256>")])
    func forwardedHelpAndUsage(command: String, option: String) async throws {
        try await CLI.withTemporary { cli in
            for arguments in [[command, "--help"], ["help", command]] {
                let help = try await cli.run(arguments)
                #expect(help.status == 0, "\(arguments): \(help.stderr)")
                #expect(help.stdout.contains("USAGE: sandbox \(command) <app>"), "\(arguments): \(help.stdout)")
                #expect(help.stdout.contains(option), "\(arguments): the command's own options")
            }
            let usage = try await cli.run(command)
            #expect(usage.status == 64, "\(usage.stderr)")
            #expect(usage.stderr.contains("Missing expected argument '<app>'"), "\(usage.stderr)")
        }
    }

    @Test("standard input, output and the exit status pass through: an encrypted backup and its listing")
    func standardStreamsPassThrough() async throws {
        try await CLI.withTemporary { cli in
            try await cli.run("create", "com.example.notes")
            let repository = cli.scratch + "/repository"
            let password = Array("correct horse\n".utf8)
            let backup = try await CLI.program.run(
                ["backup", "com.example.notes", repository, "--password-file", "/dev/stdin"],
                environment: ["SANDBOX_HOME": cli.home], input: password, outputIn: cli.scratch)
            #expect(backup.status == 0, "\(backup.stderr)")
            let listed = try await CLI.program.run(
                ["snapshots", repository, "--password-file", "/dev/stdin", "--json"],
                environment: ["SANDBOX_HOME": cli.home], input: password, outputIn: cli.scratch)
            #expect(listed.status == 0, "\(listed.stderr)")
            let snapshots = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]
            #expect(snapshots?.count == 1, "\(listed.stdout)")
            let wrong = try await CLI.program.run(
                ["snapshots", repository, "--password-file", "/dev/stdin"],
                environment: ["SANDBOX_HOME": cli.home], input: Array("wrong\n".utf8), outputIn: cli.scratch)
            #expect(wrong.status == 1, "\(wrong.stdout) \(wrong.stderr)")
            #expect(wrong.stderr.hasPrefix("sandbox: "), "\(wrong.stderr)")
        }
    }

    @Test("without sandbox-extras beside it, sandbox names the missing path and how to build it")
    func missingExtras() async throws {
        try await CLI.withTemporary { cli in
            let lonely = cli.scratch + "/bin/sandbox"
            try FileManager.default.createDirectory(atPath: cli.scratch + "/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: try CLI.program.path, toPath: lonely)
            let program = BuiltProgram(path: lonely)
            for arguments in [["share", "com.example.notes"], ["help", "backup"]] {
                let missing = try await program.run(
                    arguments, environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch)
                #expect(missing.status == 1, "\(arguments): \(missing.stderr)")
                #expect(missing.stderr.contains("'\(cli.scratch)/bin/sandbox-extras'"), "\(missing.stderr)")
                #expect(missing.stderr.contains("swift build -c release --product sandbox-extras"))
                #expect(missing.stderr.hasSuffix("[missing-executable]\n"), "\(missing.stderr)")
            }
            // The quick commands need nothing beside it.
            let list = try await program.run(["list"], environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch)
            #expect(list.status == 0, "\(list.stderr)")
        }
    }

    @Test("sandbox links the Swift runtime and Foundation statically, and no HTTP or server library")
    func frontLinksLittle() async throws {
        try await CLI.withTemporary { cli in
            let path = try CLI.program.path
            let libraries = try await BuiltProgram(path: "/usr/bin/ldd").run([path], outputIn: cli.scratch)
            #expect(libraries.status == 0, "\(libraries.stderr)")
            for shared in ["libswiftCore", "libFoundation", "lib_FoundationICU", "libdispatch"] {
                #expect(!libraries.stdout.contains(shared), "\(shared) in:\n\(libraries.stdout)")
            }
            // Their modules' names are in every symbol they define: none is in the file (grep exits 1).
            let modules = ["Hummingbird", "AsyncHTTPClient", "SandboxBackup", "NIOPosix"].flatMap { ["-e", $0] }
            let found = try await BuiltProgram(path: "/usr/bin/grep").run(
                ["-a", "-o", "-m", "1", "-F"] + modules + [path], outputIn: cli.scratch)
            #expect(found.status == 1, "\(path) links \(found.stdout)")
        }
    }
}
