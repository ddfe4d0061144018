import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

@Suite(
    "sandbox run: a running program is a live user of its container (issue 28)",
    .enabled(if: landlockIsComplete, "needs Landlock ABI 6: Linux 6.12 or later"))
struct RunCoordinationCLITests {
    @Test(
        "uninstall and update refuse while the program runs, naming it; after SIGKILL of sandbox run they still refuse until the program is gone too"
    )
    func refusesUntilProgramIsGone() async throws {
        try await RunFixture.with { fixture in
            let home = try SandboxHome(location: fixture.cli.home)
            let app = try AppIdentifier(fixture.app)
            // The program tries to rewrite its registration through the descriptor it holds (4,
            // after the daemon connection), and by reopening it for writing.
            let script =
                "(echo '{}' >&4) 2>/dev/null || echo no-write; (echo '{}' > /proc/self/fd/4) 2>/dev/null || echo no-reopen; echo ready; exec sleep 120"
            let runner = try fixture.start(["--", try RunFixture.system("sh"), "-c", script])
            #expect(try await eventually { try runner.standardOutput().hasSuffix("ready\n") })
            #expect(try runner.standardOutput() == "no-write\nno-reopen\nready\n")
            let program = try #require(try home.presenters(of: app).first { $0.pid != runner.pid })
            #expect(program.kind == .run)
            #expect(program.description.contains("sandbox run"))

            for operation in [CoordinatedOperation.uninstall, .update] {
                let error = try #require(await attempt(operation, of: app, in: home))
                #expect(error.code == .containerInUse)
                #expect(error.message.contains("(pid \(runner.pid))"), "\(error)")
                #expect(error.message.contains("(pid \(program.pid))"), "\(error)")
            }

            runner.signal(SIGKILL)
            _ = await runner.exit
            #expect(kill(program.pid, 0) == 0, "the program outlives its launcher (a new session)")
            let outlived = try #require(await attempt(.uninstall, of: app, in: home))
            #expect(outlived.code == .containerInUse)
            #expect(outlived.message.contains("(pid \(program.pid))"), "\(outlived)")
            #expect(!outlived.message.contains("(pid \(runner.pid))"), "\(outlived)")

            #expect(kill(program.pid, SIGKILL) == 0)
            #expect(try await eventually { try home.presenters(of: app).isEmpty })
            #expect(await attempt(.uninstall, of: app, in: home) == nil)
        }
    }

    @Test("a program that ends unregisters: operations proceed at once after sandbox run exits")
    func unregistersAtExit() async throws {
        try await RunFixture.with { fixture in
            let home = try SandboxHome(location: fixture.cli.home)
            let app = try AppIdentifier(fixture.app)
            #expect(try await fixture.run("--", try RunFixture.system("true")).status == 0)
            #expect(try home.presenters(of: app).isEmpty)
            #expect(await attempt(.restore, of: app, in: home) == nil)
        }
    }
}

/// Runs `operation` (doing nothing) on `app`, coordinated, on a thread of its own; its error.
private func attempt(
    _ operation: CoordinatedOperation, of app: AppIdentifier, in home: SandboxHome
) async
    -> SandboxError?
{
    do {
        try await OwnedThread.run(name: "operation") { () throws(SandboxError) in
            try home.coordinating(operation, of: app, timeout: .seconds(5)) {}
        }
        return nil
    } catch {
        return error
    }
}
