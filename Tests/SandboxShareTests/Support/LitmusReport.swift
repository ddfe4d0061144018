import Foundation

/// What `litmus` printed, read from its text: per-suite summaries, every FAIL and every WARNING.
///
/// litmus exits 0 even when tests fail (`-k`), so its output is the only verdict.
struct LitmusReport: Sendable {
    struct Summary: Sendable, Equatable {
        var suite: String
        var run: Int
        var passed: Int
        var failed: Int
    }

    /// One FAIL or WARNING line, with the suite and the test it belongs to.
    struct Finding: Sendable, Equatable, CustomStringConvertible {
        var suite: String
        var test: String
        var text: String
        var description: String { "\(suite)/\(test): \(text)" }
    }

    var summaries: [Summary] = []
    var failures: [Finding] = []
    var warnings: [Finding] = []

    var run: Int { summaries.reduce(0) { $0 + $1.run } }
    var passed: Int { summaries.reduce(0) { $0 + $1.passed } }

    /// Reads litmus's output: `-> running `basic':` starts a suite, ` 3. options.... pass` is a
    /// test, `<- summary for `basic': of 16 tests run: 16 passed, 0 failed. 100.0%` ends it.
    init(parsing output: String) {
        var suite = "?"
        var test = "?"
        // litmus redraws a test's line with a carriage return: each piece is a line of its own.
        for rawLine in output.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-> running `"), let name = Self.quoted(line) {
                suite = name
                continue
            }
            if line.hasPrefix("<- summary for `"), let summary = Self.summary(line) {
                summaries.append(summary)
                continue
            }
            if let (name, rest) = Self.testLine(line) {
                test = name
                record(rest, suite: suite, test: test)
            } else {
                record(line, suite: suite, test: test)
            }
        }
    }

    private mutating func record(_ text: String, suite: String, test: String) {
        if let range = text.range(of: "WARNING:") {
            warnings.append(Finding(suite: suite, test: test, text: String(text[range.upperBound...]).trimmed))
        }
        if text.hasPrefix("FAIL") || text.contains(" FAIL ") || text.hasSuffix(" FAIL") {
            failures.append(Finding(suite: suite, test: test, text: text))
        }
    }

    /// The name between `` ` `` and `'`.
    private static func quoted(_ line: String) -> String? {
        guard let open = line.firstIndex(of: "`"), let close = line[open...].firstIndex(of: "'") else { return nil }
        return String(line[line.index(after: open)..<close])
    }

    private static func summary(_ line: String) -> Summary? {
        guard let suite = quoted(line) else { return nil }
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        // "of N tests run: P passed, F failed. 100.0%" → N, P, F, 100, 0
        guard numbers.count >= 3 else { return nil }
        return Summary(suite: suite, run: numbers[0], passed: numbers[1], failed: numbers[2])
    }

    /// ` 9. mkcol_again........ FAIL (…)` → ("mkcol_again", "FAIL (…)").
    private static func testLine(_ line: String) -> (String, String)? {
        guard let dot = line.firstIndex(of: "."), Int(line[..<dot]) != nil else { return nil }
        let afterNumber = line[line.index(after: dot)...].drop(while: { $0 == " " })
        let name = afterNumber.prefix(while: { $0 != "." && $0 != " " })
        guard !name.isEmpty else { return nil }
        let rest = afterNumber.dropFirst(name.count).drop(while: { $0 == "." || $0 == " " })
        return (String(name), String(rest))
    }

    /// A markdown table: suite, run, passed, failed.
    var table: String {
        var lines = ["| suite | run | passed | failed |", "|---|---|---|---|"]
        for summary in summaries {
            lines.append("| \(summary.suite) | \(summary.run) | \(summary.passed) | \(summary.failed) |")
        }
        lines.append("| total | \(run) | \(passed) | \(run - passed) |")
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
