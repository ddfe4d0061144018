import Foundation
import SandboxTesting
import Testing

/// litmus, the WebDAV conformance suite (Debian package `litmus` 0.13), against `sandbox share`:
/// every suite, 104 tests, no FAIL and no WARNING outside ``allowedWarnings``.
@Suite struct LitmusTests {
    /// How many tests each suite runs against a class 2 server (research/sharing.md §2.1).
    static let expectedRuns = ["basic": 16, "copymove": 13, "props": 30, "locks": 41, "http": 4]

    /// Warnings accepted, by `suite/test`, each with the reason it is right for this server.
    static let allowedWarnings: [String: String] = [:]

    @Test(.enabled(if: ExternalTool.available("litmus")), .timeLimit(.minutes(15)))
    func everySuitePasses() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-litmus") { scratch in
                // litmus writes debug.log and child.log into its working directory.
                let output = try await ExternalTool.run(
                    "litmus", ["-k", server.url, "sandbox", server.code], in: scratch.path,
                    environment: ["TESTS": "basic copymove props locks http"], outputIn: scratch.path,
                    timeout: .seconds(600))
                #expect(output.exit == .exited(0), "litmus: \(output.stderr)")
                let report = LitmusReport(parsing: output.stdout)
                print("litmus against sandbox share:\n\(report.table)")
                for failure in report.failures { Issue.record("litmus FAIL \(failure)") }
                for warning in report.warnings where Self.allowedWarnings["\(warning.suite)/\(warning.test)"] == nil {
                    Issue.record("litmus WARNING not allowed: \(warning)")
                }
                let runs = Dictionary(report.summaries.map { ($0.suite, $0.run) }, uniquingKeysWith: +)
                #expect(runs == Self.expectedRuns, "tests run per suite (a skipped suite has fewer)")
                #expect(report.passed == 104, "litmus passed \(report.passed)/104")
                if report.passed != 104 || !report.failures.isEmpty {
                    let log = FileManager.default.contents(atPath: scratch.appending("debug.log")) ?? Data()
                    print("litmus debug.log (last 4000 bytes):\n\(String(decoding: log.suffix(4000), as: UTF8.self))")
                }
            }
        }
    }

    /// The parser, on output litmus printed against nginx (carriage-return redraws included).
    @Test func theReportReadsSummariesFailuresAndWarnings() {
        let output = """
            -> running `basic':
            \r 0. init.................. \r 0. init.................. pass
            \r 2. options............... \r 2. options............... FAIL (OPTIONS on base collection `/dav/litmus/': 405 Not Allowed)
            \r 9. delete_fragment....... WARNING: DELETE removed collection resource with Request-URI including fragment; unsafe
                ...................... pass (with 1 warning)
                ...................... \r10. mkcol................. pass
            <- summary for `basic': of 16 tests run: 15 passed, 1 failed. 93.8%
            -> 1 warning was issued.
            -> running `http':
            \r 2. expect100............. \r 2. expect100............. pass
            <- summary for `http': of 4 tests run: 4 passed, 0 failed. 100.0%
            """
        let report = LitmusReport(parsing: output)
        #expect(
            report.summaries == [
                .init(suite: "basic", run: 16, passed: 15, failed: 1),
                .init(suite: "http", run: 4, passed: 4, failed: 0),
            ])
        #expect(report.failures.map(\.test) == ["options"])
        #expect(report.failures.first?.suite == "basic")
        #expect(report.warnings.map(\.test) == ["delete_fragment"])
        #expect(report.warnings.first?.text.hasPrefix("DELETE removed collection") == true)
        #expect(report.run == 20 && report.passed == 19)
    }
}
