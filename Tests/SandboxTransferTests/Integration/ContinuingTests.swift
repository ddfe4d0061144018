import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// What a tool that is run again needs from the library: a session per URL, and a request that
/// continues its paused download.
@Suite struct ContinuingTests {
    let body = TestData.bytes(200_000, seed: 61)

    @Test func sessionsPerURLAreStableAndDistinct() throws {
        let a = try #require(URL(string: "http://h/a.bin"))
        let b = try #require(URL(string: "http://h/b.bin"))
        #expect(
            DownloadSession.identifier(for: a, prefix: "cli-") == DownloadSession.identifier(for: a, prefix: "cli-"))
        #expect(
            DownloadSession.identifier(for: a, prefix: "cli-") != DownloadSession.identifier(for: b, prefix: "cli-"))
        #expect(DownloadSession.identifier(for: a, prefix: "cli-").count == 20)
    }

    @Test func aRequestContinuesItsPausedDownload() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"c\"")
            resource.dropAfter = [100_000]
            server.set("/f", resource)
            let url = try #require(URL(string: server.url("/f")))
            let identifier = DownloadSession.identifier(for: url, prefix: "t-")
            let session = try fixture.session(identifier, Fixture.noRetries)
            #expect(try await fixture.download(url.absoluteString, session: session).failure?.resumeData != nil)
            let events = EventLog(session)
            let digest = try ExpectedDigest(.sha256, hex: TestData.sha256(body))
            let task = try session.downloadTask(
                continuingOrStarting: DownloadRequest(url: url, expectedDigest: digest, destination: .documents))
            task.resume()
            let outcome = try await task.result().get()
            #expect(outcome.digest == digest.hex)
            #expect(outcome.path?.description == "Documents/f")
            #expect(events.resumeOffsets.count == 1)
            #expect(try fixture.leftovers(identifier).isEmpty)
            // nothing paused: a new task
            let again = try session.downloadTask(continuingOrStarting: DownloadRequest(url: url))
            #expect(again.taskIdentifier > task.taskIdentifier)
        }
    }
}
