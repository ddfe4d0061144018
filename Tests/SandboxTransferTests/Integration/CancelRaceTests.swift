import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `cancel()` 0–50 ms after `resume()`, 100 times: never reported as a success, never a file left.
/// (FoundationNetworking lost such a cancel in 11 of 40 runs.)
@Suite struct CancelRaceTests {
    @Test func cancelSoonAfterResumeAlwaysWins() async throws {
        let server = try await FaultServer.start()
        defer { Task { try await server.stop() } }
        var resource = FaultResource(body: TestData.bytes(200_000, seed: 3), etag: "\"c\"")
        resource.chunkSize = 4_096
        resource.chunkDelayMilliseconds = 1  // cancels land while connecting, streaming and stalled
        resource.stallAfter = Array(repeating: 150_000, count: 200)  // never completes: a success would be a bug
        server.set("/f", resource)
        try await Fixture.with { fixture in
            let session = try fixture.session()
            let url = try #require(URL(string: server.url("/f")))
            var stages: [DownloadTaskState: Int] = [:]
            for trial in 0..<100 {
                let task = try session.downloadTask(with: DownloadRequest(url: url, destination: .caches))
                task.resume()
                let delay = (trial * 37) % 51  // 0…50 ms, spread evenly
                if delay > 0 { try await Task.sleep(for: .milliseconds(delay)) }  // the delay under test, not a wait
                stages[task.state, default: 0] += 1
                task.cancel()
                let result = await task.result()
                #expect(result.failure?.code == .cancelled, "trial \(trial) after \(delay) ms: \(result)")
                #expect(task.state == .completed)
                #expect(try fixture.leftovers().isEmpty, "trial \(trial)")
            }
            #expect(try fixture.files(in: .caches).isEmpty)
            #expect(stages[.running, default: 0] > 50)
        }
    }
}
