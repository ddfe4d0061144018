import SandboxTransfer
import SandboxTransferTesting
import Testing

extension Fixture {
    /// Runs `body` with a fault server and a fixture, both removed afterwards.
    static func withFaultServer(_ body: (FaultServer, Fixture) async throws -> Void) async throws {
        try await SandboxTransferTests.withFaultServer { server in
            try await Fixture.with { fixture in try await body(server, fixture) }
        }
    }

    /// Serves `resource` at `/f`, downloads it into Caches and expects the body byte for byte;
    /// returns the session's events.
    func downloadExactly(
        _ resource: FaultResource, from server: FaultServer,
        _ configuration: DownloadSession.Configuration = Fixture.fast
    ) async throws -> EventLog {
        server.set("/f", resource)
        let session = try session("test", configuration)
        let events = EventLog(session)
        try expectExact(try await download(server.url("/f"), session: session), resource.body)
        return events
    }

    /// Expects a successful download of exactly `expected` (SHA-256), and no file left behind.
    func expectExact(_ result: Result<DownloadOutcome, SandboxError>, _ expected: [UInt8]) throws {
        let outcome = try result.get()
        #expect(TestData.sha256(try contents(outcome.path)) == TestData.sha256(expected))
        #expect(outcome.byteCount == Int64(expected.count))
        #expect(try leftovers().isEmpty)
    }
}
