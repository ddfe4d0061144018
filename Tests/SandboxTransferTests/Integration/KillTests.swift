import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// The `sandbox download` process is killed with SIGKILL at random moments, 50 times, then run to
/// the end: the file is exact, and the server sent less than 1.1 × its size in all.
///
/// The server paces the body evenly (2 KiB every 2 ms, at most 1 MB/s), so kills land in the
/// middle of the transfer, and 50 runs cannot finish the 8 MiB file; the last run is served fast. (nginx's `limit_rate` cannot do that: it sends a whole second's worth at the
/// start of each request, so every run would get exactly one burst.)
@Suite struct KillTests {
    @Test func sigkillAtRandomMomentsThenResume() async throws {
        let server = try await FaultServer.start()
        let payload = TestData.bytes(8 << 20, seed: 99)
        var resource = FaultResource(body: payload, etag: "\"big-v1\"")
        resource.chunkSize = 2_048
        resource.chunkDelayMilliseconds = 2
        server.set("/big.bin", resource)
        let url = server.url("/big.bin")
        try await CLIFixture.with { cli in
            var killed = 0
            var finishedEarly = false
            var offsets: [Int64] = []
            for _ in 0..<50 {
                let process = try cli.start(["download", Fixture.app, url, "--json"])
                let delay = Int.random(in: 10...150)
                // the random moment of the kill, not a wait for a condition
                try await Task.sleep(for: .milliseconds(delay))
                guard process.isRunning else {
                    finishedEarly = true
                    _ = try await process.finish()
                    break
                }
                process.signal(SIGKILL)
                let output = try await process.finish()
                if output.status == 0 {  // it finished between the check and the kill
                    finishedEarly = true
                    break
                }
                #expect(output.exit.signal == SIGKILL)
                killed += 1
                offsets += output.stdout.split(separator: "\n").compactMap { line in
                    line.contains("\"resumed\"")
                        ? line.split(separator: "\"offset\":").last.flatMap { Int64($0.prefix { $0.isNumber }) } : nil
                }
            }
            #expect(killed == 50 || finishedEarly)
            if !finishedEarly {
                server.change("/big.bin") {
                    $0.chunkDelayMilliseconds = 0
                    $0.chunkSize = 64 * 1024
                }  // the last run need not be slow
                let final = try await cli.run("download", Fixture.app, url, "--json")
                #expect(final.status == 0, "\(final.stderr)")
                #expect(final.stdout.contains("\"path\":\"Library/Caches/big.bin\""))
            }
            let file = try cli.contents("Library/Caches/big.bin")
            #expect(TestData.sha256(file) == TestData.sha256(payload))
            #expect(offsets == offsets.sorted(), "a resume went backwards: \(offsets)")
            let list = try await cli.run("downloads", Fixture.app, "--json")
            #expect(list.stdout.contains("\"state\":\"completed\""))
            #expect(!list.stdout.contains("interrupted") && !list.stdout.contains("paused"), "\(list.stdout)")
            let sessions = try cli.containerHome + "/Library/Caches/com.sandbox.downloads"
            let folders = try FileManager.default.contentsOfDirectory(atPath: sessions)
            #expect(folders.count == 1)
            for folder in folders {
                #expect(
                    Set(try FileManager.default.contentsOfDirectory(atPath: sessions + "/" + folder)) == [
                        "tasks", ".lock",
                    ])
            }
            try await server.stop()
            let served = server.bodyBytesSent(for: "/big.bin")
            let requests = server.requests.count
            #expect(
                served < payload.count * 11 / 10,
                "served \(served) bytes for \(payload.count) in \(requests) requests over \(killed) kills")
            print(
                "kill test: \(killed) kills, \(requests) requests, \(served) body bytes served for \(payload.count) (\(Double(served) / Double(payload.count))x)"
            )
        }
    }
}
