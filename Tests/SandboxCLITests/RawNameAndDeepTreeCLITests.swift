import Foundation
import Glibc
import SandboxTesting
import Testing

/// `ls`, `du`, `cp` and `rm --recursive` over a name that is not UTF-8 and a folder nested past
/// what paths name (issue 17, items 3 and 4).
@Suite("The command line over raw names and deep trees")
struct RawNameAndDeepTreeCLITests {
    let app = "com.example.deep"

    /// A file named `bad\xFF.txt` and a chain of `levels` folders `d` in the host directory.
    private func plant(in directory: String, levels: Int) throws {
        var fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(.ENOENT) }
        let raw: [CChar] =
            Array("bad".utf8).map { CChar(bitPattern: $0) } + [CChar(bitPattern: 0xFF)]
            + Array(".txt".utf8).map { CChar(bitPattern: $0) } + [0]
        close(openat(fd, raw, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))
        for _ in 0..<levels {
            guard mkdirat(fd, "d", 0o755) == 0 else { throw POSIXError(.EEXIST) }
            let next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            fd = next
        }
        close(fd)
    }

    @Test(
        "a non-UTF-8 name is listed escaped; a 3,000-level folder is listed as far as paths go, measured, copied and removed"
    )
    func rawNamesAndDepth() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = try await cli.run("path", app, "documents").stdout.trimmingCharacters(in: .newlines)
            try plant(in: documents, levels: 3_000)

            let listing = try await cli.run("ls", app, "Documents")
            #expect(listing.status == 0, "\(listing.stderr)")
            #expect(listing.stdout == "Inbox/\nbad\\xFF.txt\nd/\n")

            let recursive = try await cli.run("ls", app, "Documents", "--recursive")
            #expect(recursive.status == 1)
            #expect(recursive.stdout.contains("bad\\xFF.txt\n"))
            #expect(recursive.stdout.contains("d/d/d/d/"))
            #expect(recursive.stderr.contains("nested too deeply") && recursive.stderr.contains("[name-too-long]"))

            let usage = try await cli.run("du", app)
            #expect(usage.status == 0, "\(usage.stderr)")
            #expect(usage.stdout.contains("\t1\tDocuments"))

            #expect(try await cli.run("cp", app, "Documents", "Copy").status == 0)
            #expect(try await cli.run("ls", app, "Copy").stdout == "Inbox/\nbad\\xFF.txt\nd/\n")
            let removed = try await cli.run("rm", app, "Copy", "--recursive")
            #expect(removed.status == 0, "\(removed.stderr)")
            let removedDocuments = try await cli.run("rm", app, "Documents/d", "--recursive")
            #expect(removedDocuments.status == 0, "\(removedDocuments.stderr)")
            #expect(try await cli.run("ls", app, "Documents").stdout == "Inbox/\nbad\\xFF.txt\n")
        }
    }

    /// `sandbox ARGUMENTS…` under `ulimit -n 32`: a walk must not need more descriptors than that.
    private func runWithFewDescriptors(_ cli: CLI, _ arguments: String...) async throws -> Int32 {
        let script = "ulimit -n 32 && exec \"$0\" \"$@\" >/dev/null 2>&1"
        let shell = BuiltProgram(path: "/bin/sh")
        let arguments = ["-c", script, try CLI.program.path] + arguments
        return try await shell.run(arguments, environment: ["SANDBOX_HOME": cli.home], outputIn: cli.scratch).status
    }

    @Test("du, cp, rm --recursive, restart, purge and uninstall walk a 3,000-level folder under ulimit -n 32")
    func fewDescriptors() async throws {
        try await CLI.withTemporary { cli in
            #expect(try await cli.run("create", app).status == 0)
            let documents = try await cli.run("path", app, "documents").stdout.trimmingCharacters(in: .newlines)
            let tmp = try await cli.run("path", app, "tmp").stdout.trimmingCharacters(in: .newlines)
            try plant(in: documents, levels: 3_000)
            try plant(in: tmp, levels: 3_000)
            #expect(try await runWithFewDescriptors(cli, "du", app) == 0)
            #expect(try await runWithFewDescriptors(cli, "df") == 0)
            #expect(try await runWithFewDescriptors(cli, "cp", app, "Documents/d", "Documents/e") == 0)
            #expect(try await runWithFewDescriptors(cli, "rm", app, "Documents/e", "--recursive") == 0)
            #expect(try await runWithFewDescriptors(cli, "restart") == 0)
            try plant(in: tmp, levels: 3_000)
            #expect(try await runWithFewDescriptors(cli, "purge") == 0)
            #expect(try await cli.run("ls", app, "tmp").stdout.isEmpty)
            #expect(try await runWithFewDescriptors(cli, "uninstall", app) == 0)
            #expect(!FileManager.default.fileExists(atPath: documents))
        }
    }
}
