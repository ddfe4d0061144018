import Foundation
import SandboxTesting
import SandboxTransferTesting
import Testing

/// `sandbox fetch`, run as the built binary against nginx. (Here rather than in SandboxCLITests,
/// like `download`'s tests: this target has the test servers.)
@Suite struct FetchCLITests {
    func withNginx(_ body: (NginxServer, CLIFixture) async throws -> Void) async throws {
        let nginx = try await NginxServer.start()
        do {
            try await CLIFixture.with { cli in try await body(nginx, cli) }
        } catch {
            await nginx.stop()  // `error` propagates
            throw error
        }
        await nginx.stop()
    }

    @Test func textIsPrintedDecodedAndImagesAreDescribed() async throws {
        try await withNginx { nginx, cli in
            try nginx.serve([0x63, 0x61, 0x66, 0xE9, 0x0A], as: "latin1.txt")
            let text = try await cli.run("fetch", Fixture.app, nginx.url("/charset/latin1.txt?charset=iso-8859-1"))
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout == "café\n")
            try nginx.serve(Array("plain UTF-8 ✓".utf8), as: "plain.txt")
            let unlabelled = try await cli.run("fetch", Fixture.app, nginx.url("/files/plain.txt"))
            #expect(unlabelled.stdout == "plain UTF-8 ✓")  // application/octet-stream, but valid UTF-8 text
            let png =
                [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(640) + be32(480)
                + [UInt8](repeating: 0, count: 12_321)
            try nginx.serve(png, as: "image.png")
            let image = try await cli.run("fetch", Fixture.app, nginx.url("/files/image.png"))
            #expect(image.stdout == "image/png 640×480, 12,345 bytes\n")
            let json = try await cli.run("fetch", Fixture.app, nginx.url("/files/image.png"), "--json")
            #expect(json.stdout.contains("\"image\":{\"format\":\"png\",\"height\":480,\"width\":640}"))
            try nginx.serve([0, 1, 2, 3], as: "binary.bin")
            let binary = try await cli.run("fetch", Fixture.app, nginx.url("/files/binary.bin"))
            #expect(binary.stdout == "application/octet-stream, 4 bytes\n")
        }
    }

    @Test func failuresExitNonZeroWithTheirCode() async throws {
        try await withNginx { nginx, cli in
            try nginx.serve([UInt8](repeating: 0x61, count: 20_000), as: "big.txt")
            let large = try await cli.run("fetch", Fixture.app, nginx.url("/text/big.txt"), "--max-size", "10K")
            #expect(large.status == 1 && large.stdout.isEmpty)
            #expect(large.stderr.contains("[too-large]") && large.stderr.contains("10240"), "\(large.stderr)")
            let fits = try await cli.run("fetch", Fixture.app, nginx.url("/text/big.txt"), "--max-size", "20000")
            #expect(fits.status == 0 && fits.stdout.count == 20_000)
            let missing = try await cli.run("fetch", Fixture.app, nginx.url("/files/missing"))
            #expect(missing.status == 1 && missing.stderr.contains("404") && missing.stderr.contains("[http-status]"))
            let usage = try await cli.run("fetch", Fixture.app, "ftp://example.com/x")
            #expect(usage.status == 64)
            let noApp = try await cli.run("fetch", "com.example.missing", nginx.url("/text/big.txt"))
            #expect(noApp.status != 0)
        }
    }
}
