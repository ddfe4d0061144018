import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Discretionary tasks end to end: one waits while a normal task of another app session runs,
/// and starts when it finishes.
@Suite(.serialized) struct DiscretionaryTaskTests {
    @Test func aDiscretionaryTaskWaitsWhileANormalOneRunsAndStartsWhenItFinishes() async throws {
        let server = try await NginxServer.start(slowRate: "256k")
        // 3 MiB at 256 KiB/s: the normal task runs ~12 s, long enough to see the other one held
        // even when the test process is starved for a while.
        let normal = TestData.bytes(3 << 20, seed: 41)
        let discretionary = TestData.bytes(200_000, seed: 42)
        try server.serve(normal, as: "normal.bin")
        try server.serve(discretionary, as: "later.bin")
        try await DaemonFixture.with { fixture in
            let first = try fixture.startApp("n", ["submit", server.url("/slow/normal.bin"), "--exit-after", "1"])
            #expect(await eventually(timeout: .seconds(60)) { Self.progressSeen(first) })
            let second = try fixture.startApp(
                "d", ["submit", server.url("/files/later.bin"), "--discretionary", "--exit-after", "1"])
            #expect(
                await eventually(timeout: .seconds(60)) { (try? second.standardOutput().contains("submitted")) == true }
            )
            // Held: not started while the normal task is still running (listed after it, so it
            // was running when the discretionary one was seen held).
            // What the listing shows depends on how far the normal task got: on a machine loaded
            // past its ~12 s, it may be over already, and the discretionary one rightly started.
            // The order nginx logs below holds however loaded the machine is.
            let held = try await Self.task(of: "d", fixture)
            let running = try await Self.task(of: "n", fixture)
            if running?.state == .running {
                #expect(held?.state == .suspended && held?.bytesOnDisk == 0, "\(String(describing: held))")
            }
            let one = AppOutput(try await first.finish(timeout: .seconds(120)))
            let two = AppOutput(try await second.finish(timeout: .seconds(120)))
            #expect(one.events.contains("completed 1") && two.events.contains("completed 1"), "\(two.output.stdout)")
            #expect(try fixture.contents("Library/Caches/normal.bin") == normal)
            #expect(try fixture.contents("Library/Caches/later.bin") == discretionary)
            // nginx logs a request when it ends: the discretionary one began after the normal one ended.
            let order = server.accessLog().map(\.uri)
            #expect(order == ["/slow/normal.bin", "/files/later.bin"], "\(order)")
        }
        await server.stop()
    }

    private static func progressSeen(_ app: RunningProgram) -> Bool {
        let text = (try? app.standardOutput()) ?? ""  // unreadable yet: nothing printed
        return AppOutput.parse(text).contains { $0["stream"] as? String == "progress" }
    }

    /// Task 1 of session `session` as the daemon lists it, through a session that neither
    /// receives its events nor starts a daemon.
    private static func task(of session: String, _ fixture: DaemonFixture) async throws -> DownloadTaskSummary? {
        var configuration = BackgroundConfiguration.background(identifier: session)
        configuration.daemonPaths = fixture.paths
        configuration.receivesEvents = false
        configuration.startsDaemon = false
        let observer = try await BackgroundSession(
            configuration: configuration, app: AppIdentifier(DaemonFixture.app), in: fixture.home)
        defer { Task { await observer.detach() } }
        return try await observer.taskList().first { $0.taskIdentifier == 1 }
    }
}
