import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Sandbox
import SandboxTransferTesting
import Testing

@testable import SandboxTransfer

/// The session's HTTP client: its own, shut down when the session is invalidated, or the app's,
/// used and left running.
@Suite struct HTTPClientTests {
    let body = TestData.bytes(50_000, seed: 51)

    @Test func aSessionShutsItsOwnClientDown() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/f", FaultResource(body: body, etag: "\"h\""))
            let session = try fixture.session()
            try fixture.expectExact(try await fixture.download(server.url("/f"), session: session), body)
            let client = session.client
            await session.invalidateAndCancel()
            await #expect(throws: HTTPClientError.alreadyShutdown) {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/f")), timeout: .seconds(5))
            }
            let error = #expect(throws: SandboxError.self) {
                try session.downloadTask(with: try #require(URL(string: server.url("/f"))))
            }
            #expect(error?.code == .sessionInvalidated)
        }
    }

    @Test func anInjectedClientIsUsedAndLeftRunning() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/f", FaultResource(body: body, etag: "\"h\""))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
            do {
                let session = try DownloadSession(
                    identifier: "test", container: fixture.container, configuration: Fixture.fast, httpClient: client)
                #expect(session.client === client)
                try fixture.expectExact(try await fixture.download(server.url("/f"), session: session), body)
                await session.invalidateAndCancel()
                let response = try await client.execute(HTTPClientRequest(url: server.url("/f")), timeout: .seconds(5))
                #expect(response.status == .ok)
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
