import Foundation
import SandboxTesting
import Testing

/// litmus and headless Chromium against `sandbox share --tls`: the protocol and the page work over
/// HTTPS as over HTTP.
@Suite struct TLSClientTests {
    /// Every litmus suite over `https://`: every test passes as over HTTP but `http/expect100`,
    /// which litmus itself skips against a TLS server (it speaks raw sockets; "skipping for SSL
    /// server"): 103 of 103 run. ``ShareTLSTests`` sends `Expect: 100-continue` over TLS with curl
    /// instead. litmus 0.13 (neon) accepts any certificate (its verify callback passes every
    /// failure), so this tests WebDAV over TLS, not certificate checks: curl and rclone test those.
    @Test(.enabled(if: ExternalTool.available("litmus")), .timeLimit(.minutes(15)))
    func litmusPassesEverySuiteOverTLS() async throws {
        try await ShareServerProcess.with(arguments: ["--tls"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-litmus-tls") { scratch in
                #expect(server.url.hasPrefix("https://"))
                let output = try await ExternalTool.run(
                    "litmus", ["-k", server.url, "sandbox", server.code], in: scratch.path,
                    environment: ["TESTS": "basic copymove props locks http"], outputIn: scratch.path,
                    timeout: .seconds(600))
                #expect(output.exit == .exited(0), "litmus: \(output.stderr)")
                let report = LitmusReport(parsing: output.stdout)
                print("litmus against sandbox share --tls:\n\(report.table)")
                for failure in report.failures { Issue.record("litmus FAIL \(failure)") }
                for warning in report.warnings { Issue.record("litmus WARNING: \(warning)") }
                let runs = Dictionary(report.summaries.map { ($0.suite, $0.run) }, uniquingKeysWith: +)
                var expected = LitmusTests.expectedRuns
                expected["http"] = 3  // expect100 skipped by litmus over TLS
                #expect(runs == expected, "tests run per suite (a skipped suite has fewer)")
                #expect(output.stdout.contains("SKIPPED (skipping for SSL server)"))
                #expect(report.passed == 103, "litmus passed \(report.passed)/103 over TLS")
            }
        }
    }

    /// Chromium trusting the device certificate's key alone (`--ignore-certificate-errors-spki-list`)
    /// logs in (a Secure cookie), lists and uploads.
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func chromiumLogsInListsAndUploadsOverTLS() async throws {
        try await ShareServerProcess.with(arguments: ["--tls"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser-tls") { scratch in
                try server.plant("kept.txt", "kept")
                let printed = try server.process.standardOutput()
                let pin = try #require(ShareServerProcess.value(after: "Key pin:", in: printed))
                try await SharePageScript.run(
                    .tls, on: server, scratch: scratch, publicKeyPin: String(pin.dropFirst("sha256//".count)))
                #expect(server.contents("kept.txt") == "kept")
                #expect(server.documentsTree() == ["kept.txt", "sent over tls.bin"], "\(server.documentsTree())")
            }
        }
    }
}
