import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@Suite(
    "ConfinedLaunch: what is prepared before anything starts",
    .enabled(if: LandlockABI.current().version >= LandlockABI.required, "needs Landlock ABI 6: Linux 6.12 or later"))
struct ConfinedLaunchTests {
    let app: AppIdentifier
    init() throws { app = try AppIdentifier("com.example.notes") }

    @Test("the environment is the container's; only PATH, the terminal and the locale are kept")
    func environment() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: app)
            let launch = try home.prepareRun(
                app, command: ["sh"],
                environment: [
                    "PATH": "/usr/bin:/bin", "LANG": "de_DE.UTF-8", "LC_TIME": "C", "SANDBOX_HOME": "/x",
                    "XDG_RUNTIME_DIR": "/run/user/0", "AWS_SECRET_ACCESS_KEY": "secret",
                ])
            let homePath = container.homeDirectory
            #expect(launch.executable == "/usr/bin/sh")
            #expect(
                launch.environment == [
                    "PATH": "/usr/bin:/bin", "LANG": "de_DE.UTF-8", "LC_TIME": "C", "HOME": homePath,
                    "CFFIXED_USER_HOME": homePath, "TMPDIR": homePath + "/tmp/",
                    "XDG_CONFIG_HOME": homePath + "/Library/Preferences",
                    "XDG_DATA_HOME": homePath + "/Library/Application Support",
                    "XDG_STATE_HOME": homePath + "/Library/Application Support",
                    "XDG_CACHE_HOME": homePath + "/Library/Caches",
                    "SANDBOX_BUNDLE_PATH": container.hostPath(for: .bundle),
                    "SANDBOX_APP_IDENTIFIER": "com.example.notes",
                ])
            #expect(launch.unenforced.isEmpty)
        }
    }

    @Test("an old ABI is refused naming kernel and ABI, unless best effort; an empty command is refused")
    func refusals() throws {
        try withTemporaryHome { home, _ in
            try home.createContainer(for: app)
            let old = #expect(throws: SandboxError.self) {
                try home.prepareRun(app, command: ["true"], environment: ["SANDBOX_LANDLOCK_ABI": "5", "PATH": "/bin"])
            }
            #expect(old?.code == .unsupported)
            #expect(old?.message.contains("Landlock ABI 5 on Linux ") == true)
            #expect(old?.message.contains("signals to processes outside the sandbox are not blocked") == true)
            let best = try home.prepareRun(
                app, command: ["true"], options: ConfinementOptions(bestEffort: true),
                environment: ["SANDBOX_LANDLOCK_ABI": "5", "PATH": "/bin"])
            #expect(best.unenforced == ["signals to processes outside the sandbox are not blocked"])
            let empty = #expect(throws: SandboxError.self) { try home.prepareRun(app, command: []) }
            #expect(empty?.code == .invalidArgument)
            let missing = #expect(throws: SandboxError.self) {
                try home.prepareRun(app, command: ["no-such-program"], environment: ["PATH": "/bin"])
            }
            #expect(missing?.code == .notFound)
            #expect(missing?.cause?.systemCall == "execve")
        }
    }

    @Test("a program runs confined through the library, its output where the caller asks")
    func start() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let scratch = directory.path
            let home = try SandboxHome(location: directory.appending("home"))
            let container = try home.createContainer(for: app)
            let launch = try home.prepareRun(app, command: ["sh", "-c", "echo hi > Documents/a; cat /etc/shadow"])
            let output = try FileDescriptor.open(
                scratch + "/err", .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let process = try output.closeAfter { try launch.start(standardError: output) }
            #expect(await process.exit == .exited(1))
            #expect(try container.root.readContents(of: ContainerPath("Documents/a")) == Array("hi\n".utf8))
            #expect(try String(contentsOfFile: scratch + "/err", encoding: .utf8).contains("Permission denied"))
        }
    }

    @Test("no descriptor of the launcher's but the standard streams and the program's registration reaches it")
    func descriptorsClosed() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            try home.createContainer(for: app)
            let inherited = open("/etc/hostname", O_RDONLY)  // without O_CLOEXEC
            #expect(inherited > 2)
            defer { close(inherited) }
            let launch = try home.prepareRun(app, command: ["/bin/ls", "/proc/self/fd"])
            let output = try FileDescriptor.open(
                directory.appending("out"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let process = try output.closeAfter { try launch.start(standardOutput: output) }
            #expect(await process.exit == .exited(0))
            // 0, 1, 2, the descriptor ls opened to list the folder (3), and the program's registration (4).
            #expect(try String(contentsOfFile: directory.appending("out"), encoding: .utf8) == "0\n1\n2\n3\n4\n")
        }
    }
}
