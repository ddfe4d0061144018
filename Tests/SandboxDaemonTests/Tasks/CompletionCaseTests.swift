import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// The five completion cases of seed 002, end to end against nginx, with the delegate's events and
/// their order as the test app printed them.
@Suite(.serialized) struct CompletionCaseTests {
    /// `events` without the live progress, as the app printed them.
    private func kinds(_ output: AppOutput) -> [String] { output.events }

    /// Case 1: the app is in the foreground (attached) throughout: the ordinary callbacks.
    @Test func finishedInTheForeground() async throws {
        let server = try await NginxServer.start()
        let payload = TestData.bytes(500_000, seed: 11)
        try server.serve(payload, as: "one.bin")
        try await DaemonFixture.with { fixture in
            let output = try await fixture.runApp("s", ["submit", server.url("/files/one.bin"), "--exit-after", "1"])
            #expect(kinds(output) == ["didFinishEvents", "finished 1", "completed 1"], "\(output.output.stdout)")
            #expect(try fixture.contents("Library/Caches/one.bin") == payload)
        }
        await server.stop()
    }

    /// Case 2: the app is alive but in the background (detached); when it comes back the events
    /// arrive, then "all events delivered".
    @Test func finishedInTheBackground() async throws {
        let server = try await NginxServer.start()
        let payload = TestData.bytes(500_000, seed: 12)
        try server.serve(payload, as: "two.bin")
        try await DaemonFixture.with { fixture in
            let output = try await fixture.runApp("s", ["background", server.url("/files/two.bin")])
            #expect(output.status == 0, "\(output.output.stdout)")
            #expect(
                kinds(output) == ["didFinishEvents", "finished 1", "completed 1", "didFinishEvents"],
                "\(output.output.stdout)")
            #expect(try fixture.contents("Library/Caches/two.bin") == payload)
        }
        await server.stop()
    }

    /// Starts a slow download in the app and SIGKILLs the app once the task exists.
    /// Submits `url` and kills the app once it says so: the download must still run then, so the
    /// killed cases serve at `slowRate` 256k (~4 s per MiB), not a rate a starved test process
    /// could outlast before it sees the app submit.
    private func submitAndKill(_ fixture: DaemonFixture, _ url: String) async throws {
        let app = try fixture.startApp("s", ["submit", url])
        #expect(await eventually { (try? app.standardOutput().contains("\"submitted\"")) == true })
        app.signal(SIGKILL)
        _ = await app.exit
    }

    /// Case 3: killed and never reopened: the daemon finishes, stages the file in the container's
    /// Library/Caches and keeps the events.
    @Test func killedAndNeverReopened() async throws {
        let server = try await NginxServer.start(slowRate: "256k")
        let payload = TestData.bytes(1 << 20, seed: 13)
        try server.serve(payload, as: "three.bin")
        try await DaemonFixture.with { fixture in
            try await submitAndKill(fixture, server.url("/slow/three.bin"))
            #expect(await eventually(timeout: .seconds(60)) { (try? fixture.stagedFiles("s")) == ["1-three.bin"] })
            #expect(try fixture.contents("Library/Caches/com.sandbox.background/s/1-three.bin") == payload)
            #expect(
                await eventuallyAsync {
                    let status = try? await DaemonStatus.query(paths: fixture.paths)
                    return status?.queuedEvents == 2 && status?.activeTasks == 0
                })
        }
        await server.stop()
    }

    /// Case 3 with a relaunch command registered: the daemon runs it (confined to the container, as
    /// `sandbox run` would) when the events are ready, and the relaunched app receives them through
    /// the connection its broker hands it and moves the file.
    @Test func killedAndRelaunchedByTheDaemon() async throws {
        // Slow enough (~4 s) that the download still runs when the app is killed, however late a
        // starved test process sees it submit.
        let server = try await NginxServer.start(slowRate: "256k")
        let payload = TestData.bytes(1 << 20, seed: 16)
        try server.serve(payload, as: "relaunch.bin")
        try await DaemonFixture.with { fixture in
            let script = try ConfinedClient.installRelaunchScript(in: fixture)
            let app = try fixture.startApp(
                "s", ["submit", server.url("/slow/relaunch.bin"), "--relaunch-script", script])
            #expect(await eventually { (try? app.standardOutput().contains("\"submitted\"")) == true })
            app.signal(SIGKILL)
            _ = await app.exit
            #expect(await eventually(timeout: .seconds(60)) { (try? fixture.contents("tmp/relaunched")) != nil })
            #expect(
                await eventually(timeout: .seconds(60)) {
                    (try? fixture.contents("Library/Caches/relaunch.bin")) == payload
                })
            #expect(
                await eventuallyAsync {
                    (try? await DaemonStatus.query(paths: fixture.paths))?.queuedEvents == 0
                })
            #expect(try fixture.stagedFiles("s").isEmpty)
        }
        await server.stop()
    }

    /// Case 4: killed, then reopened with the session re-created while the download runs: the
    /// rest arrives live.
    @Test func killedAndReopenedWithTheSession() async throws {
        let server = try await NginxServer.start(slowRate: "1m")
        let payload = TestData.bytes(3 << 20, seed: 14)
        try server.serve(payload, as: "four.bin")
        try await DaemonFixture.with { fixture in
            try await submitAndKill(fixture, server.url("/slow/four.bin"))
            let output = try await fixture.runApp("s", ["attach", "--exit-after", "1"])
            #expect(kinds(output) == ["didFinishEvents", "finished 1", "completed 1"], "\(output.output.stdout)")
            #expect(try fixture.contents("Library/Caches/four.bin") == payload)
        }
        await server.stop()
    }

    /// Case 5: killed, reopened without re-creating the session: the file waits in the staging
    /// folder and the events in the queue — across a restart of the daemon — until the session is
    /// re-created.
    @Test func killedAndReopenedWithoutTheSession() async throws {
        let server = try await NginxServer.start(slowRate: "256k")
        let payload = TestData.bytes(1 << 20, seed: 15)
        try server.serve(payload, as: "five.bin")
        try await DaemonFixture.with { fixture in
            try await submitAndKill(fixture, server.url("/slow/five.bin"))
            // The app runs again but only lists (it does not take the session's events).
            let listing = try await fixture.runApp("s", ["list"])
            #expect(listing.status == 0)
            #expect(
                await eventuallyAsync(timeout: .seconds(60)) {
                    (try? await DaemonStatus.query(paths: fixture.paths))?.queuedEvents == 2
                })
            #expect(try fixture.stagedFiles("s") == ["1-five.bin"])
            // The daemon stops (SIGTERM) and starts again on the next use: the events are still there.
            for pid in fixture.daemonPIDs() { kill(pid, SIGTERM) }
            #expect(await eventually { fixture.daemonPIDs().isEmpty })
            let output = try await fixture.runApp("s", ["attach", "--exit-after", "1"])
            #expect(kinds(output) == ["finished 1", "completed 1", "didFinishEvents"], "\(output.output.stdout)")
            #expect(try fixture.contents("Library/Caches/five.bin") == payload)
        }
        await server.stop()
    }
}
