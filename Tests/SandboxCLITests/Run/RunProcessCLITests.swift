import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@Suite(
    "sandbox run: the process — environment, privileges, exit status, signals, refusals",
    .enabled(if: landlockIsComplete, "needs Landlock ABI 6: Linux 6.12 or later"))
struct RunProcessCLITests {
    @Test("the app's variables point into its container; the launcher's others do not pass")
    func environment() async throws {
        try await RunFixture.with { fixture in
            let home = fixture.data(fixture.app)
            let output = try await fixture.run(
                "--", try RunFixture.system("sh"), "-c",
                "printf '%s\\n' \"$HOME\" \"$CFFIXED_USER_HOME\" \"$TMPDIR\" \"$(pwd)\" \"$SANDBOX_BUNDLE_PATH\" \"$SANDBOX_APP_IDENTIFIER\" \"$XDG_CONFIG_HOME\" \"$XDG_DATA_HOME\" \"$XDG_CACHE_HOME\" \"$XDG_STATE_HOME\" \"${SANDBOX_HOME:-unset}\""
            )
            #expect(output.status == 0, "\(output.stderr)")
            #expect(
                output.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) == [
                    home, home, home + "/tmp/", home, fixture.bundle, fixture.app, home + "/Library/Preferences",
                    home + "/Library/Application Support", home + "/Library/Caches",
                    home + "/Library/Application Support", "unset", "",
                ])
        }
    }

    @Test("exit statuses pass through; a signal death is 128+N; a missing program is 127")
    func exitStatus() async throws {
        try await RunFixture.with { fixture in
            let sh = try RunFixture.system("sh")
            #expect(try await fixture.run("--", sh, "-c", "exit 7").status == 7)
            #expect(try await fixture.run("--", fixture.probe, "exit", "3").status == 3)
            #expect(try await fixture.run("--", sh, "-c", "kill -TERM $$").status == 128 + SIGTERM)
            let missing = try await fixture.run("--", "no-such-program")
            #expect(missing.status == 127)
            #expect(missing.stderr.contains("No program 'no-such-program' in PATH"), "\(missing.stderr)")
        }
    }

    @Test("SIGTERM and SIGINT sent to sandbox run reach the program")
    func signalsForwarded() async throws {
        try await RunFixture.with { fixture in
            let waiting = try fixture.start(["--", fixture.probe, "wait-term"])
            #expect(try await eventually { try waiting.standardOutput() == "ready\n" })
            waiting.signal(SIGTERM)
            let ended = try await waiting.finish()
            #expect(ended.status == 42, "\(ended.stderr)")
            #expect(ended.stdout == "ready\ngot SIGTERM\n")

            let sleeping = try fixture.start(["--", try RunFixture.system("sh"), "-c", "echo ready; exec sleep 60"])
            #expect(try await eventually { try sleeping.standardOutput() == "ready\n" })
            sleeping.signal(SIGINT)
            let interrupted = try await sleeping.finish(timeout: .seconds(30))
            #expect(interrupted.status == 128 + SIGINT, "\(interrupted.exit)")
        }
    }

    @Test("the program cannot signal processes outside the sandbox")
    func cannotSignalOutside() async throws {
        try await RunFixture.with { fixture in
            let output = try await fixture.run("--", fixture.probe, "kill", String(getpid()), "0")
            #expect(output.stdout == "error: Operation not permitted\n")
        }
    }

    @Test(
        "no new privileges: a setuid program runs without its owner's rights",
        .enabled(if: getuid() == 0, "makes a file setuid to nobody, which needs root"))
    func noNewPrivileges() async throws {
        try await RunFixture.with { fixture in
            let status = try await fixture.run(
                "--", try RunFixture.system("sh"), "-c", "grep NoNewPrivs /proc/self/status")
            #expect(status.stdout == "NoNewPrivs:\t1\n", "\(status.stderr)")

            // The bundle is checked when the app opens; the probe is made setuid to `nobody`
            // after that, as a file changed under a running launcher would be.
            let launch = try SandboxHome(location: fixture.cli.home).prepareRun(
                AppIdentifier(fixture.app), command: [fixture.probe, "ids"])
            #expect(chown(fixture.probe, 65534, 65534) == 0)
            #expect(chmod(fixture.probe, 0o4755) == 0)
            let outside = try await BuiltProgram(path: fixture.probe).run(["ids"], outputIn: fixture.cli.scratch)
            #expect(outside.stdout == "uid=0 euid=65534\n", "setuid works outside the sandbox")

            let output = fixture.cli.scratch + "/ids.out"
            let file = try FileDescriptor.open(
                output, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
            let process = try file.closeAfter { try launch.start(standardOutput: file) }
            #expect(await process.exit == .exited(0))
            #expect(try String(contentsOfFile: output, encoding: .utf8) == "uid=0 euid=0\n")
        }
    }

    @Test(
        "a root program keeps only the capabilities of file work: no module loading, reboot or raising its limits",
        .enabled(if: getuid() == 0, "checks what root keeps"))
    func rootCapabilities() async throws {
        try await RunFixture.with { fixture in
            let status = try await fixture.run(
                "--", try RunFixture.system("sh"), "-c", "grep -E '^Cap(Eff|Bnd)' /proc/self/status")
            // CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH, FOWNER, FSETID, KILL, SETGID, SETUID, NET_BIND_SERVICE
            #expect(status.stdout == "CapEff:\t00000000000004ff\nCapBnd:\t00000000000004ff\n", "\(status.stderr)")
            let raise = try await fixture.run(
                "--", try RunFixture.system("python3"), "-c",
                "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1 << 20))")
            #expect(raise.status == 1)
            #expect(raise.stderr.contains("not allowed to raise maximum limit"), "\(raise.stderr)")
        }
    }

    @Test("a tampered bundle is refused before anything runs")
    func tamperedBundle() async throws {
        try await RunFixture.with { fixture in
            let file = fixture.bundle + "/hello.txt"
            chmod(file, 0o644)
            try Data("changed\n".utf8).write(to: URL(fileURLWithPath: file))
            let marker = fixture.data(fixture.app) + "/Documents/ran"
            let output = try await fixture.run("--", try RunFixture.system("touch"), "Documents/ran")
            #expect(output.status == 1)
            #expect(output.stderr.contains("[bundle-modified]"), "\(output.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker))
        }
    }

    @Test("an older Landlock ABI is refused naming kernel and ABI; --best-effort runs and says what is not enforced")
    func olderABI() async throws {
        try await RunFixture.with { fixture in
            let cat = try RunFixture.system("cat")
            let refused = try await fixture.start(
                ["--", cat, "/etc/shadow"], environment: ["SANDBOX_LANDLOCK_ABI": "3"]
            )
            .finish()
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("Landlock ABI 3 on Linux "), "\(refused.stderr)")
            #expect(refused.stderr.contains("--best-effort"))
            #expect(refused.stderr.hasSuffix("[unsupported]\n"))
            let best = try await fixture.start(
                ["--best-effort", "--", cat, "/etc/shadow"], environment: ["SANDBOX_LANDLOCK_ABI": "3"]
            ).finish()
            #expect(best.stderr.contains("warning: not enforced (Landlock ABI 3 on Linux"), "\(best.stderr)")
            #expect(best.stderr.contains("signals to processes outside the sandbox are not blocked"))
            #expect(best.stderr.contains("cat: /etc/shadow: Permission denied"), "ABI 3 still confines files")
            #expect(best.status == 1)
        }
    }
}
