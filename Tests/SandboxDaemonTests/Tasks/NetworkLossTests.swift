import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Waiting for connectivity end to end: nginx in a network namespace behind a veth pair whose
/// link the test takes down mid-transfer (root and iproute2, as in CI).
@Suite(.serialized, .enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2"))
struct NetworkLossTests {
    @Test func aTaskWaitsWhileTheLinkIsDownThenCompletesByteExact() async throws {
        // 8 MiB at 256 KiB/s: ~30 s before it could finish unattended, so a starved test process
        // still takes the link down mid-transfer; the resumption (a Range request) runs unthrottled.
        let payload = TestData.bytes(8 << 20, seed: 31)
        try await DaemonFixture.with { fixture in
            try await NetworkNamespace.with(scratch: fixture.scratch.path) { namespace in
                let server = try await NamespacedNginx.start(in: namespace, slowRate: "256k")
                try server.serve(payload, as: "big.bin")
                let app = try fixture.startApp("net", ["submit", server.url("/slow/big.bin"), "--exit-after", "1"])
                // Mid-transfer (some bytes seen, far from the end) the link goes down.
                #expect(await eventually(timeout: .seconds(60)) { Self.bytesSeen(app) >= 256 << 10 })
                try await namespace.setLink(up: false)
                let waited = await eventually(timeout: .seconds(30)) {
                    Self.lines(app).contains { $0["kind"] as? String == "waiting" }
                }
                #expect(waited, "the task reported no wait: \((try? app.standardOutput()) ?? "")")
                try await Task.sleep(for: .seconds(5))  // the 5 s without a link
                try await namespace.setLink(up: true)
                let output = AppOutput(try await app.finish(timeout: .seconds(120)))
                await server.stop()
                #expect(output.status == 0, "\(output.output.stdout)")
                #expect(
                    output.events == ["didFinishEvents", "waiting 1", "finished 1", "completed 1"],
                    "\(output.output.stdout)")
                let completed = output.lines.first { $0["kind"] as? String == "completed" }
                #expect(completed?["error"] as? String == "", "\(output.output.stdout)")
                // The wait was not a failed attempt: no retry; the transfer continued from its file.
                #expect(!output.lines.contains { $0["stream"] as? String == "retry" }, "\(output.output.stdout)")
                #expect(output.lines.contains { $0["stream"] as? String == "resumed" }, "\(output.output.stdout)")
                #expect(try fixture.contents("Library/Caches/big.bin") == payload)
            }
        }
    }

    private static func lines(_ app: RunningProgram) -> [[String: Any]] {
        AppOutput.parse((try? app.standardOutput()) ?? "")  // unreadable yet: nothing printed
    }

    private static func bytesSeen(_ app: RunningProgram) -> Int {
        lines(app).compactMap { $0["stream"] as? String == "progress" ? $0["bytes"] as? Int : nil }.max() ?? 0
    }
}
