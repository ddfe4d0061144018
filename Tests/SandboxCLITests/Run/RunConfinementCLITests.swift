import Foundation
import Glibc
import SandboxTesting
import Testing

/// `sandbox run` confines real programs (`cat`, `ls`, `sh`, `python3`, a compiled probe) to
/// their container with Landlock. The tests run as root, whom file modes do not stop: every
/// refusal below is Landlock's (each test first shows that the file is reachable outside).
@Suite(
    "sandbox run: the file system a confined program sees",
    .enabled(if: landlockIsComplete, "needs Landlock ABI 6: Linux 6.12 or later"))
struct RunConfinementCLITests {
    @Test("cat, sh, python3 and the probe read and write the app's Documents")
    func readsAndWritesDocuments() async throws {
        try await RunFixture.with { fixture in
            let sh = try RunFixture.system("sh")
            let shell = try await fixture.run("--", sh, "-c", "echo from-sh > Documents/a.txt && cat Documents/a.txt")
            #expect(shell.status == 0, "\(shell.stderr)")
            #expect(shell.stdout == "from-sh\n")
            let python = try await fixture.run(
                "--", try RunFixture.system("python3"), "-c",
                "open('Documents/p.txt', 'w').write('from-python'); print(open('Documents/p.txt').read())")
            #expect(python.status == 0, "\(python.stderr)")
            #expect(python.stdout == "from-python\n")
            let probe = try await fixture.run("--", fixture.probe, "write", "Documents/probe.txt")
            #expect(probe.stdout == "ok\n", "\(probe.stderr)")
            let listing = try await fixture.run("--", try RunFixture.system("ls"), "Documents")
            #expect(listing.stdout.split(separator: "\n").sorted() == ["Inbox", "a.txt", "p.txt", "probe.txt"])
            let written = try String(contentsOfFile: fixture.data(fixture.app) + "/Documents/a.txt", encoding: .utf8)
            #expect(written == "from-sh\n")
        }
    }

    @Test("another app's container, Device/, the home, /etc/shadow, /root and /home are unreachable")
    func cannotReachOutside() async throws {
        try await RunFixture.with { fixture in
            let cat = try RunFixture.system("cat")
            let ls = try RunFixture.system("ls")
            let deviceFile = try #require(
                FileManager.default.subpathsOfDirectory(atPath: fixture.cli.home + "/Device").first {
                    var isDirectory: ObjCBool = false
                    return FileManager.default.fileExists(
                        atPath: fixture.cli.home + "/Device/" + $0, isDirectory: &isDirectory) && !isDirectory.boolValue
                })
            let files = [fixture.secret, fixture.cli.home + "/Device/" + deviceFile, "/etc/shadow"]
            for file in files {
                if getuid() == 0 {
                    #expect(FileManager.default.isReadableFile(atPath: file), "outside the sandbox, root reads \(file)")
                }
                let output = try await fixture.run("--", cat, file)
                #expect(output.status == 1 && output.stdout.isEmpty, "\(file): \(output.stdout)")
                #expect(output.stderr.contains("Permission denied"), "\(file): \(output.stderr)")
                let probe = try await fixture.run("--", fixture.probe, "read", file)
                #expect(probe.stdout == "error: Permission denied\n", "\(file)")
            }
            let folders = [
                fixture.data(fixture.other), fixture.data(fixture.other) + "/Documents", fixture.cli.home,
                fixture.cli.home + "/Device", "/root", "/home",
            ]
            for folder in folders where FileManager.default.fileExists(atPath: folder) {
                let output = try await fixture.run("--", ls, folder)
                #expect(output.status != 0 && output.stdout.isEmpty, "\(folder): \(output.stdout)")
                #expect(output.stderr.contains("Permission denied"), "\(folder): \(output.stderr)")
            }
            let python = try await fixture.run(
                "--", try RunFixture.system("python3"), "-c", "open('/etc/shadow').read()")
            #expect(python.status == 1)
            #expect(python.stderr.contains("PermissionError"), "\(python.stderr)")
        }
    }

    @Test("the bundle is read and executed, never written, truncated, removed or renamed")
    func bundleIsReadOnly() async throws {
        try await RunFixture.with { fixture in
            let file = fixture.bundle + "/hello.txt"
            let read = try await fixture.run("--", fixture.probe, "read", file)
            #expect(read.stdout == "ok\n", "\(read.stderr)")
            for attempt in [["write", file], ["truncate", file], ["rename", file, "Documents/moved.txt"]] {
                let output = try await fixture.run(["--", fixture.probe] + attempt)
                #expect(output.status == 1, "\(attempt)")
                #expect(output.stdout.hasPrefix("error: "), "\(attempt): \(output.stdout)")
            }
            let sh = try RunFixture.system("sh")
            let removal = try await fixture.run(
                "--", sh, "-c",
                "echo more >> \"$SANDBOX_BUNDLE_PATH/hello.txt\"; rm -f \"$SANDBOX_BUNDLE_PATH/hello.txt\"")
            #expect(removal.stderr.contains("Permission denied"), "\(removal.stderr)")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "bundled text\n")
            #expect(try await fixture.cli.run("verify", fixture.app).status == 0)
        }
    }

    @Test("no escape by '..', a symlink it makes, a hard link, a rename out, or /proc/self/root")
    func noEscape() async throws {
        try await RunFixture.with { fixture in
            let sh = try RunFixture.system("sh")
            let cat = try RunFixture.system("cat")
            let dotDot = try await fixture.run("--", cat, "../\(fixture.other)/Documents/secret.txt")
            #expect(dotDot.status == 1 && dotDot.stderr.contains("Permission denied"), "\(dotDot.stderr)")

            let symlinks = try await fixture.run(
                "--", sh, "-c",
                "ln -s /etc/shadow Documents/shadow && ln -s '\(fixture.secret)' Documents/secret && cat Documents/shadow; cat Documents/secret"
            )
            #expect(symlinks.stdout.isEmpty, "\(symlinks.stdout)")
            #expect(symlinks.stderr.components(separatedBy: "Permission denied").count == 3, "\(symlinks.stderr)")

            for source in ["/etc/shadow", fixture.secret] {
                let link = try await fixture.run("--", fixture.probe, "link", source, "Documents/hard")
                #expect(link.stdout.hasPrefix("error: "), "\(source): \(link.stdout)")
                #expect(!FileManager.default.fileExists(atPath: fixture.data(fixture.app) + "/Documents/hard"))
            }

            try Data("mine".utf8).write(to: URL(fileURLWithPath: fixture.data(fixture.app) + "/Documents/mine.txt"))
            let renamed = try await fixture.run(
                "--", fixture.probe, "rename", "Documents/mine.txt", fixture.data(fixture.other) + "/Documents/mine.txt"
            )
            #expect(renamed.stdout.hasPrefix("error: "), "\(renamed.stdout)")
            #expect(FileManager.default.fileExists(atPath: fixture.data(fixture.app) + "/Documents/mine.txt"))

            for path in ["/proc/self/root/etc/shadow", "/proc/1/root/etc/shadow", "/proc/self/root" + fixture.secret] {
                let output = try await fixture.run("--", cat, path)
                #expect(output.status == 1 && output.stdout.isEmpty, "\(path): \(output.stdout)")
            }
        }
    }

    @Test("what the app writes in its container cannot be executed")
    func writtenProgramsDoNotRun() async throws {
        try await RunFixture.with { fixture in
            let copy = fixture.data(fixture.app) + "/Documents/true"
            try FileManager.default.copyItem(atPath: try RunFixture.system("true"), toPath: copy)
            let output = try await fixture.run("--", "./Documents/true")
            #expect(output.status == 126, "\(output.stderr)")
            #expect(output.stderr.contains("Cannot execute './Documents/true'"), "\(output.stderr)")
        }
    }

    @Test("--allow-read opens one more path, read-only")
    func allowRead() async throws {
        try await RunFixture.with { fixture in
            let shared = fixture.cli.scratch + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
            try Data("shared\n".utf8).write(to: URL(fileURLWithPath: shared + "/a.txt"))
            let cat = try RunFixture.system("cat")
            let denied = try await fixture.run("--", cat, shared + "/a.txt")
            #expect(denied.stderr.contains("Permission denied"), "\(denied.stderr)")
            let allowed = try await fixture.run("--allow-read", shared, "--", cat, shared + "/a.txt")
            #expect(allowed.stdout == "shared\n", "\(allowed.stderr)")
            let write = try await fixture.run("--allow-read", shared, "--", fixture.probe, "write", shared + "/a.txt")
            #expect(write.stdout == "error: Permission denied\n")
            let missing = try await fixture.run("--allow-read", shared + "/none", "--", cat, "/dev/null")
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("[not-found]"), "\(missing.stderr)")
        }
    }

    @Test("resource limits: 1,024 open files (4,096 hard), files no larger than the free space, no core dumps")
    func limits() async throws {
        try await RunFixture.with { fixture in
            let output = try await fixture.run("--", try RunFixture.system("cat"), "/proc/self/limits")
            #expect(output.status == 0, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            var launcher = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &launcher)
            let hard = min(UInt64(launcher.rlim_max), 4096)
            #expect(lines.contains("Max open files \(min(1024, hard)) \(hard) files"), "\(lines)")
            #expect(lines.contains("Max core file size 0 0 bytes"), "\(lines)")
            let fileSize = try #require(lines.first { $0.hasPrefix("Max file size ") })
            let limit = try #require(Int64(fileSize.split(separator: " ")[3]))
            let volume = try FileManager.default.attributesOfFileSystem(forPath: fixture.cli.home)
            let capacity = try #require(volume[.systemSize] as? Int64)
            #expect(limit > 0 && limit <= capacity, "\(fileSize)")
        }
    }
}
