import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `sandbox download` and `sandbox downloads`, run as the built binary.
@Suite struct DownloadCLITests {
    let payload = TestData.bytes(600_000, seed: 8)

    func withServer(_ body: (FaultServer, CLIFixture) async throws -> Void) async throws {
        try await withFaultServer { server in
            server.set("/f.bin", FaultResource(body: payload, etag: "\"f\""))
            try await CLIFixture.with { cli in try await body(server, cli) }
        }
    }

    @Test func downloadPrintsThePathAndChecksTheDigest() async throws {
        try await withServer { server, cli in
            let sha = TestData.sha256(payload)
            let text = try await cli.run(
                "download", Fixture.app, server.url("/f.bin"), "--to", "documents", "--sha256", sha.uppercased())
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout == "Documents/f.bin\n")
            #expect(try cli.contents("Documents/f.bin") == payload)
            let json = try await cli.run("download", Fixture.app, server.url("/f.bin"), "--json")
            let last = try #require(json.stdout.split(separator: "\n").last)
            #expect(last == "{\"bytes\":600000,\"event\":\"finished\",\"path\":\"Library/Caches/f.bin\"}")
            // One schema for every download line: `bytes` of `total` (the last progress is always sent).
            let progress = try #require(
                json.stdout.split(separator: "\n").last { $0.contains("\"event\":\"progress\"") })
            #expect(progress.contains("\"bytes\":600000") && progress.contains("\"total\":600000"), "\(progress)")
            #expect(!json.stdout.contains("\"written\"") && !json.stdout.contains("\"expected\""), "\(json.stdout)")
            let list = try await cli.run("downloads", Fixture.app)
            #expect(list.stdout.split(separator: "\n").count == 3)
            #expect(list.stdout.contains("completed"))
        }
    }

    @Test func downloadsOfDifferentURLsRunAtOnce() async throws {
        try await withServer { server, cli in
            var slow = FaultResource(body: payload, etag: "\"f\"")
            slow.chunkSize = 16_384
            slow.chunkDelayMilliseconds = 5
            server.set("/a.bin", slow)
            server.set("/b.bin", slow)
            let first = try cli.start(["download", Fixture.app, server.url("/a.bin")])
            let second = try cli.start(["download", Fixture.app, server.url("/b.bin")])
            let (a, b) = (try await first.finish(), try await second.finish())
            #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
            #expect(try cli.contents("Library/Caches/a.bin") == payload)
            #expect(try cli.contents("Library/Caches/b.bin") == payload)
        }
    }

    @Test func failuresExitNonZeroWithAClearMessage() async throws {
        try await withServer { server, cli in
            let missing = try await cli.run("download", Fixture.app, server.url("/missing"))
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("404") && missing.stderr.contains("[http-status]"))
            let wrong = try await cli.run(
                "download", Fixture.app, server.url("/f.bin"), "--sha256", String(repeating: "0", count: 64))
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("[checksum-mismatch]"))
            #expect(try await cli.run("download", Fixture.app, "ftp://example.com/x").status == 64)
            #expect(try await cli.run("download", Fixture.app, server.url("/f.bin"), "--sha256", "abc").status == 64)
            #expect(try await cli.run("download", "not an app", server.url("/f.bin")).status == 64)
        }
    }

    @Test func interruptPausesAndTheSameCommandResumes() async throws {
        try await withServer { server, cli in
            var slow = FaultResource(body: payload, etag: "\"f\"")
            slow.stallAfter = [200_000]
            server.set("/slow.bin", slow)
            let process = try cli.start(["download", Fixture.app, server.url("/slow.bin"), "--json"])
            #expect(try await cli.waitForPartial(ofSize: 200_000))
            process.signal(SIGINT)
            let paused = try await process.finish()
            #expect(paused.status == 130, "\(paused.stderr)")
            #expect(paused.stderr.contains("Run the same command again to continue"))
            #expect(try await cli.run("downloads", Fixture.app, "--json").stdout.contains("\"state\":\"paused\""))
            let resumed = try await cli.run("download", Fixture.app, server.url("/slow.bin"), "--json")
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout.contains("{\"event\":\"resumed\",\"offset\":200000,\"total\":600000}"))
            #expect(try cli.contents("Library/Caches/slow.bin") == payload)
            #expect(server.requests.last?.range == "bytes=200000-")
        }
    }

    /// Interrupted, a download the server gave no strong validator for says it cannot be resumed,
    /// and the listing shows no bytes for it (they were deleted).
    @Test func anUnresumableDownloadSaysSo() async throws {
        try await withServer { server, cli in
            var weak = FaultResource(body: payload, etag: "W/\"f\"")
            weak.stallAfter = [200_000]
            server.set("/weak.bin", weak)
            let process = try cli.start(["download", Fixture.app, server.url("/weak.bin")])
            #expect(try await cli.waitForPartial(ofSize: 200_000))
            process.signal(SIGINT)
            let stopped = try await process.finish()
            #expect(stopped.status == 130, "\(stopped.stderr)")
            #expect(!stopped.stderr.contains("Run the same command again"), "\(stopped.stderr)")
            #expect(stopped.stderr.contains("cannot be resumed"), "\(stopped.stderr)")
            let list = try await cli.run("downloads", Fixture.app, "--json")
            #expect(list.stdout.contains("\"bytes\":0,"), "\(list.stdout)")
            #expect(list.stdout.contains("\"state\":\"cancelled\""), "\(list.stdout)")
            // One schema with the download lines: the error's code, and its message beside it.
            #expect(list.stdout.contains("\"error\":\"cancelled\""), "\(list.stdout)")
            #expect(list.stdout.contains("\"message\":\""), "\(list.stdout)")
        }
    }
}
