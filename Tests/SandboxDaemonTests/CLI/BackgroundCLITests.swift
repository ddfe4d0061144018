import Foundation
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `sandbox download --background`, `sandbox downloads [--wait]` and `sandboxd --status`, run as
/// the built programs.
@Suite(.serialized) struct BackgroundCLITests {
    @Test func backgroundDownloadListAndWait() async throws {
        let server = try await NginxServer.start(slowRate: "1m")
        let payload = TestData.bytes(1 << 20, seed: 31)
        try server.serve(payload, as: "cli.bin")
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            let submitted = try await fixture.sandbox("download", app, server.url("/slow/cli.bin"), "--background")
            #expect(submitted.status == 0, "\(submitted.stderr)")
            #expect(submitted.stdout == "1\n")
            let listed = try await fixture.sandbox("downloads", app, "--json")
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("\"background\":true"), "\(listed.stdout)")
            #expect(listed.stdout.contains("\"taskIdentifier\":1"))
            let text = try await fixture.sandbox("downloads", app)
            #expect(text.stdout.contains("B1\t"), "\(text.stdout)")
            let waited = try await fixture.sandbox("downloads", app, "--wait")
            #expect(waited.status == 0, "\(waited.stderr)")
            let lines = waited.stdout.split(separator: "\n").map(String.init)
            #expect(
                lines.suffix(2) == ["completed 1", "all-delivered"]
                    || lines.suffix(2) == ["all-delivered", "completed 1"], "\(lines)")
            #expect(lines.contains("finished 1 Library/Caches/cli.bin"), "\(lines)")
            #expect(try fixture.contents("Library/Caches/cli.bin") == payload)
            let done = try await fixture.sandbox("downloads", app, "--json")
            #expect(done.stdout.contains("\"state\":\"completed\""), "\(done.stdout)")
            let status = try await BuiltProgram("sandboxd").run(
                ["--status", "--json"], environment: fixture.environment(), outputIn: fixture.scratch.path)
            #expect(status.status == 0)
            #expect(status.stdout.contains("\"pid\":\(fixture.daemonPIDs().first ?? -1)"), "\(status.stdout)")
        }
        await server.stop()
    }
}
