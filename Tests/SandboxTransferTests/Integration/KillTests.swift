import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// The `sandbox download` process is killed with SIGKILL at random moments, 50 times, then run to
/// the end: the file is exact, and nginx served less than 1.1 × its size in all.
@Suite struct KillTests {
    @Test func sigkillAtRandomMomentsThenResume() async throws {
        let nginx = try NginxServer.start(slowRate: "1m")
        defer { nginx.stop() }
        let payload = TestData.bytes(8 << 20, seed: 99)
        try nginx.serve(payload, as: "big.bin")
        try await CLIProcess.with { cli in
            var generator = SystemRandomNumberGenerator()
            var killed = 0
            var finishedEarly = false
            for _ in 0..<50 {
                let process = try cli.start(["download", Fixture.app, nginx.url("/slow/big.bin"), "--json"])
                let delay = Int.random(in: 20...160, using: &generator)
                usleep(useconds_t(delay * 1000))  // the random moment of the kill, not a wait for a condition
                guard process.isRunning else {
                    finishedEarly = true
                    _ = try cli.finish(process)
                    break
                }
                kill(process.processIdentifier, SIGKILL)
                let output = try cli.finish(process)
                #expect(output.status == SIGKILL)
                killed += 1
            }
            #expect(killed == 50 || finishedEarly)
            if !finishedEarly {
                let final = try cli.run("download", Fixture.app, nginx.url("/slow/big.bin"), "--json")
                #expect(final.status == 0, "\(final.stderr)")
                #expect(final.stdout.contains("\"path\":\"Library/Caches/big.bin\""))
            }
            let file = try cli.contents("Library/Caches/big.bin")
            #expect(TestData.sha256(file) == TestData.sha256(payload))
            let list = try cli.run("downloads", Fixture.app, "--json")
            #expect(list.stdout.contains("\"state\":\"completed\""))
            #expect(!list.stdout.contains("interrupted"))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: try cli.containerHome + "/Library/Caches/com.sandbox.downloads/sandbox-cli")
            #expect(Set(leftovers) == ["tasks.json", ".lock"])
            nginx.stop()
            let served = nginx.accessLog().filter { $0.uri == "/slow/big.bin" }.reduce(0) { $0 + $1.bytesSent }
            #expect(served < payload.count * 11 / 10, "served \(served) bytes for \(payload.count), over \(killed) kills")
            print("kill test: \(killed) kills, \(served) bytes served for \(payload.count) (\(Double(served) / Double(payload.count))×)")
        }
    }
}
