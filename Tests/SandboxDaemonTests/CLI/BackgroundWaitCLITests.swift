import Foundation
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `sandbox downloads APP --wait` attached while background downloads end: every task's outcome
/// is printed before it returns, and a failed task makes it exit 1.
@Suite(.serialized) struct BackgroundWaitCLITests {
    /// The wait used to return as soon as the daemon's listing had no unfinished task — which the
    /// listing says before the task's `finished` and `completed` events reach the wait (9 runs of
    /// 9 ended without them; the next wait printed them). Eight downloads, each held back (503 with
    /// `Retry-After`) until its wait is attached, then completing while it is.
    @Test func waitPrintsEveryOutcomeBeforeItReturns() async throws {
        let server = try await FaultServer.start()
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            for task in 1...8 {
                let payload = TestData.bytes(1 << 20, seed: UInt64(40 + task))
                var resource = FaultResource(body: payload, etag: "\"w\(task)\"")
                // Held back by 503s that ask for 3 s each: a task gives up after 6 attempts, so
                // the wait has ~15 s to attach before the task would fail (1 s was too short for
                // a loaded machine: the task failed before the server was told to let it through).
                resource.failures = Array(repeating: 503, count: 100)
                resource.retryAfter = "3"
                resource.chunkSize = 16 << 10
                resource.chunkDelayMilliseconds = 1
                server.set("/w\(task).bin", resource)
                let submitted = try await fixture.sandbox("download", app, server.url("/w\(task).bin"), "--background")
                #expect(submitted.status == 0 && submitted.stdout == "\(task)\n", "\(submitted.stderr)")
                let waiting = try BuiltProgram("sandbox").start(
                    ["downloads", app, "--wait"], environment: fixture.environment(), outputIn: fixture.scratch.path)
                #expect(
                    await eventually(timeout: .seconds(30)) {
                        (try? waiting.standardOutput().contains("all-delivered\n")) == true
                    })
                server.change("/w\(task).bin") { $0.failures = [] }  // the download completes now, attached
                let waited = try await waiting.finish(timeout: .seconds(60))
                #expect(waited.status == 0, "\(waited.stderr)")
                let lines = waited.stdout.split(separator: "\n").map(String.init)
                #expect(lines.contains("finished \(task) Library/Caches/w\(task).bin"), "run \(task): \(lines)")
                #expect(lines.filter { $0.hasPrefix("completed") } == ["completed \(task)"], "run \(task): \(lines)")
                // Completed while attached: after the queued events.
                #expect(
                    (lines.firstIndex(of: "all-delivered") ?? .max) < (lines.firstIndex(of: "completed \(task)") ?? -1),
                    "run \(task): \(lines)")
                #expect(try fixture.contents("Library/Caches/w\(task).bin") == payload)
            }
        }
        try await server.stop()
    }

    /// A task that failed is printed and makes the wait exit 1, with one line on standard error
    /// naming it and why; the task that succeeded beside it is printed too.
    @Test func waitExitsOneWhenATaskFailed() async throws {
        let server = try await NginxServer.start(slowRate: "1m")
        let payload = TestData.bytes(512 << 10, seed: 52)
        try server.serve(payload, as: "good.bin")
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            let good = try await fixture.sandbox("download", app, server.url("/slow/good.bin"), "--background")
            #expect(good.status == 0 && good.stdout == "1\n", "\(good.stderr)")
            let missing = try await fixture.sandbox("download", app, server.url("/files/missing.bin"), "--background")
            #expect(missing.status == 0 && missing.stdout == "2\n", "\(missing.stderr)")
            let waited = try await fixture.sandbox("downloads", app, "--wait")
            #expect(waited.status == 1, "\(waited.stdout)\n\(waited.stderr)")
            let lines = waited.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("completed 1"), "\(lines)")
            #expect(lines.contains("completed 2 http-status"), "\(lines)")
            let errors = waited.stderr.split(separator: "\n").map(String.init)
            #expect(errors.count == 1, "\(errors)")
            #expect(
                errors.first?.hasPrefix("sandbox: background download 2 failed: ") == true
                    && errors.first?.hasSuffix("[http-status]") == true, "\(errors)")
            #expect(try fixture.contents("Library/Caches/good.bin") == payload)
            // Everything was delivered: a second wait has nothing to report and succeeds.
            let again = try await fixture.sandbox("downloads", app, "--wait")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout == "all-delivered\n", "\(again.stdout)")
        }
        await server.stop()
    }
}
