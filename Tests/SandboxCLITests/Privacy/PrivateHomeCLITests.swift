import Foundation
import Glibc
import SandboxTesting
import Testing

/// The home is private to its user (issue 26, item 13): what `sandbox` creates is 0700/0600
/// whatever the umask, an existing home is tightened on first use, and another local user (uid
/// 65534, through `setpriv`) reads neither a document nor the preferences.
@Suite("A private home, against another local user")
struct PrivateHomeCLITests {
    static let app = "com.example.notes"

    /// Runs `sandbox ARGUMENTS…` under `umask` (through `/bin/sh`), with the home of `cli`.
    static func run(_ cli: CLI, umask: String, _ arguments: String...) async throws -> ProgramOutput {
        let sandbox = try CLI.program.path
        return try await BuiltProgram(path: "/bin/sh").run(
            ["-c", "umask \(umask); exec \"$0\" \"$@\"", sandbox] + arguments, environment: ["SANDBOX_HOME": cli.home],
            outputIn: cli.scratch)
    }

    /// The permission bits of `path` (not following a link).
    static func mode(_ path: String) throws -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw TestFailure("lstat '\(path)': \(String(cString: strerror(errno)))") }
        return info.st_mode & 0o7777
    }

    /// `cat FILE` as uid and gid 65534 with no supplementary groups: another local user.
    static func readAsNobody(_ path: String, in cli: CLI) async throws -> ProgramOutput {
        try await BuiltProgram(path: "/usr/bin/setpriv").run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", "cat", path], outputIn: cli.scratch)
    }

    /// A scratch folder that other users may traverse, as `/tmp` or a home usually is: only the
    /// sandbox's own modes stand between them and the files.
    static func withTraversableScratch(_ body: (CLI) async throws -> Void) async throws {
        try await CLI.withTemporary { cli in
            guard chmod(cli.scratch, 0o755) == 0 else { throw TestFailure("chmod '\(cli.scratch)'") }
            try await body(cli)
        }
    }

    @Test("another uid reads neither a put document nor the preferences; modes 0700/0600", arguments: ["022", "000"])
    func otherUserReadsNothing(umask: String) async throws {
        guard getuid() == 0 else { return }  // setpriv needs CAP_SETUID: only root can be another user here
        try await Self.withTraversableScratch { cli in
            #expect(try await Self.run(cli, umask: umask, "create", Self.app).status == 0)
            let host = cli.scratch + "/secret.txt"
            try Data("the launch codes are 0000\n".utf8).write(to: URL(fileURLWithPath: host))
            guard chmod(host, 0o600) == 0 else { throw TestFailure("chmod '\(host)'") }
            let put = try await Self.run(cli, umask: umask, "put", Self.app, host, "Documents/secret.txt")
            #expect(put.status == 0, "\(put.stderr)")
            let defaults = try await Self.run(cli, umask: umask, "defaults", Self.app, "write", "token", "s3cr3t-token")
            #expect(defaults.status == 0, "\(defaults.stderr)")

            let container = "\(cli.home)/Containers/Data/\(Self.app)"
            let document = container + "/Documents/secret.txt"
            let preferences = container + "/Library/Preferences/\(Self.app).plist"
            for path in [cli.home, cli.home + "/Containers", cli.home + "/Device", container, container + "/Documents"]
            {
                #expect(try Self.mode(path) == 0o700, "\(path)")
            }
            #expect(try Self.mode(document) == 0o600)
            #expect(try Self.mode(preferences) == 0o600)

            // The same command reads a world-readable file: the refusals below are the modes'.
            let control = cli.scratch + "/public.txt"
            try Data("public\n".utf8).write(to: URL(fileURLWithPath: control))
            guard chmod(control, 0o644) == 0 else { throw TestFailure("chmod '\(control)'") }
            #expect(try await Self.readAsNobody(control, in: cli).stdout == "public\n")
            for path in [document, preferences] {
                let read = try await Self.readAsNobody(path, in: cli)
                #expect(read.status != 0, "uid 65534 read '\(path)': \(read.stdout)")
                #expect(!read.stdout.contains("launch codes") && !read.stdout.contains("s3cr3t"))
            }
        }
    }

    @Test("an existing home made world-readable is tightened on first use: root, Containers, Device")
    func existingHomeIsTightened() async throws {
        try await Self.withTraversableScratch { cli in
            #expect(try await cli.run("create", Self.app).status == 0)
            let loosened = [cli.home, cli.home + "/Containers", cli.home + "/Device"]
            for path in loosened { guard chmod(path, 0o755) == 0 else { throw TestFailure("chmod '\(path)'") } }
            let listed = try await cli.run("list")
            #expect(listed.status == 0, "\(listed.stderr)")
            for path in loosened { #expect(try Self.mode(path) == 0o700, "\(path)") }
        }
    }

    @Test("a new backup repository is private under umask 000: folders 0700, objects 0600")
    func repositoryIsPrivate() async throws {
        try await Self.withTraversableScratch { cli in
            #expect(try await cli.run("create", Self.app).status == 0)
            #expect(try await cli.input("a note\n", "write", Self.app, "Documents/note.txt").status == 0)
            let repository = cli.scratch + "/repository"
            let backup = try await Self.run(cli, umask: "000", "backup", Self.app, repository)
            #expect(backup.status == 0, "\(backup.stderr)")
            var checked = 0
            let walker = FileManager.default.enumerator(atPath: repository)
            #expect(try Self.mode(repository) == 0o700)
            while let relative = walker?.nextObject() as? String {
                let path = repository + "/" + relative
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let isDirectory = info.st_mode & S_IFMT == S_IFDIR
                #expect(info.st_mode & 0o077 == 0, "\(relative) is \(String(info.st_mode & 0o7777, radix: 8))")
                if !isDirectory { checked += 1 }
            }
            #expect(checked > 0)
        }
    }
}
