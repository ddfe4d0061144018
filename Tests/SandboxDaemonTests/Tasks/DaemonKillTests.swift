import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `sandboxd` SIGKILLed mid-transfer at 20 random moments, restarted each time by the next use:
/// the transfer resumes from the session's checkpoint each time, the file is byte-exact, and what
/// the server sent beyond the file's size is at most what a kill can find in flight (160 KiB a
/// kill: 160 ms of the paced body, which sits in the sockets' buffers and the daemon's unflushed
/// tail — on a loaded machine the daemon reads late, and a fixed 1.1 × the size was 40 KiB a
/// kill). A restart from the beginning after a kill costs the whole part downloaded before it.
///
/// The fault server paces the body (2 KiB every 2 ms), so each kill lands mid-transfer (nginx's
/// `limit_rate` would serve resumed requests at full speed).
@Suite(.serialized) struct DaemonKillTests {
    @Test func daemonKilledTwentyTimesResumesByteExact() async throws {
        let server = try await FaultServer.start()
        let payload = TestData.bytes(8 << 20, seed: 21)
        var resource = FaultResource(body: payload, etag: "\"kill-v1\"")
        resource.chunkSize = 2_048
        resource.chunkDelayMilliseconds = 2
        server.set("/big.bin", resource)
        try await DaemonFixture.with { fixture in
            let app = try fixture.startApp("s", ["submit", server.url("/big.bin")])
            #expect(await eventually { (try? app.standardOutput().contains("\"submitted\"")) == true })
            app.signal(SIGKILL)
            _ = await app.exit
            var kills = 0
            for _ in 0..<20 {
                // the random moment of the kill, not a wait for a condition
                try await Task.sleep(for: .milliseconds(Int.random(in: 50...250)))
                let daemons = fixture.daemonPIDs()
                guard !daemons.isEmpty, try fixture.stagedFiles("s").isEmpty else { break }
                for pid in daemons { kill(pid, SIGKILL) }
                #expect(await eventually { fixture.daemonPIDs().isEmpty })
                kills += 1
                // The next use starts the daemon again, which resumes the session's task.
                let probe = try await fixture.runApp("probe", ["connect"])
                guard probe.status == 0 else {
                    let log = (try? String(contentsOfFile: fixture.paths.log, encoding: .utf8)) ?? "(no log)"
                    Issue.record("the daemon did not start again: \(probe.output.stdout)\n\(log.suffix(3000))")
                    return
                }
            }
            server.change("/big.bin") {
                $0.chunkDelayMilliseconds = 0
                $0.chunkSize = 64 * 1024
            }
            #expect(await eventually(timeout: .seconds(120)) { (try? fixture.stagedFiles("s")) == ["1-big.bin"] })
            // Both events queued before the app comes back.
            #expect(
                await eventuallyAsync {
                    let status = try? await DaemonStatus.query(paths: fixture.paths)
                    return status?.activeTasks == 0 && status?.queuedEvents ?? 0 >= 2
                })
            let file = try fixture.contents("Library/Caches/com.sandbox.background/s/1-big.bin")
            #expect(TestData.sha256(file) == TestData.sha256(payload))
            let output = try await fixture.runApp("s", ["attach", "--exit-after", "1"])
            #expect(output.events.suffix(3) == ["finished 1", "completed 1", "didFinishEvents"], "\(output.events)")
            #expect(!output.events.contains { $0.hasPrefix("completed") && $0 != "completed 1" })
            try await server.stop()
            let served = server.bodyBytesSent(for: "/big.bin")
            #expect(
                served <= payload.count + kills * (160 << 10),
                "served \(served) bytes for \(payload.count) in \(server.requests.count) requests over \(kills) kills")
            print("daemon kill test: \(kills) kills, \(server.requests.count) requests, \(served) bytes served")
        }
    }
}
