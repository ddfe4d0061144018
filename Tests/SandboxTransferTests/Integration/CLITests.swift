import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// `sandbox download` and `sandbox downloads`, run as the built binary.
@Suite struct DownloadCLITests {
    let payload = TestData.bytes(600_000, seed: 8)

    func withServer(_ body: (FaultServer, CLIProcess) async throws -> Void) async throws {
        try await withFaultServer { server in
            server.set("/f.bin", FaultResource(body: payload, etag: "\"f\""))
            try await CLIProcess.with { cli in try await body(server, cli) }
        }
    }

    @Test func downloadPrintsThePathAndChecksTheDigest() async throws {
        try await withServer { server, cli in
            let sha = TestData.sha256(payload)
            let text = try cli.run("download", Fixture.app, server.url("/f.bin"), "--to", "documents", "--sha256", sha.uppercased())
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout == "Documents/f.bin\n")
            #expect(try cli.contents("Documents/f.bin") == payload)
            let json = try cli.run("download", Fixture.app, server.url("/f.bin"), "--json")
            let last = try #require(json.stdout.split(separator: "\n").last)
            #expect(last == "{\"bytes\":600000,\"event\":\"finished\",\"path\":\"Library/Caches/f.bin\"}")
            let list = try cli.run("downloads", Fixture.app)
            #expect(list.stdout.split(separator: "\n").count == 3)
            #expect(list.stdout.contains("completed"))
        }
    }

    @Test func failuresExitNonZeroWithAClearMessage() async throws {
        try await withServer { server, cli in
            let missing = try cli.run("download", Fixture.app, server.url("/missing"))
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("404") && missing.stderr.contains("[http-status]"))
            let wrong = try cli.run("download", Fixture.app, server.url("/f.bin"), "--sha256", String(repeating: "0", count: 64))
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("[checksum-mismatch]"))
            #expect(try cli.run("download", Fixture.app, "ftp://example.com/x").status == 64)
            #expect(try cli.run("download", Fixture.app, server.url("/f.bin"), "--sha256", "abc").status == 64)
            #expect(try cli.run("download", "not an app", server.url("/f.bin")).status == 64)
        }
    }

    @Test func interruptPausesAndTheSameCommandResumes() async throws {
        try await withServer { server, cli in
            var slow = FaultResource(body: payload, etag: "\"f\"")
            slow.stallAfter = [200_000]
            server.set("/slow.bin", slow)
            let process = try cli.start(["download", Fixture.app, server.url("/slow.bin"), "--json"])
            let partial = try cli.containerHome + "/Library/Caches/com.sandbox.downloads/sandbox-cli"
            #expect(await eventually {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
                return names.contains { name in
                    name.hasSuffix(".partial") && ((try? FileManager.default.attributesOfItem(atPath: partial + "/" + name)[.size] as? Int) ?? 0) == 200_000
                }
            })
            kill(process.processIdentifier, SIGINT)
            let paused = try cli.finish(process)
            #expect(paused.status == 130, "\(paused.stderr)")
            #expect(paused.stderr.contains("Run the same command again to continue"))
            #expect(try cli.run("downloads", Fixture.app, "--json").stdout.contains("\"state\":\"paused\""))
            let resumed = try cli.run("download", Fixture.app, server.url("/slow.bin"), "--json")
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(resumed.stdout.contains("{\"event\":\"resumed\",\"offset\":200000,\"total\":600000}"))
            #expect(try cli.contents("Library/Caches/slow.bin") == payload)
            #expect(server.requests.last?.range == "bytes=200000-")
        }
    }
}
