import Foundation
import SandboxTesting
import Testing

/// Every command's help, as the built `sandbox` prints it: the argument parser wraps each line of
/// a text to the terminal's width, so a text that carries its own line breaks mid-sentence comes
/// out broken twice ("anything that would" / "leave the container is refused"). A line may end
/// only at the end of a sentence, in a table row (which must fit 79 columns), or where the
/// parser wrapped it because the next word did not fit.
@Suite struct HelpTextCLITests {
    /// The widths the texts are checked at: unwrapped (every break is the text's own) and a
    /// terminal's usual 80 columns.
    static let widths = [1000, 80]

    @Test func helpTextsBreakLinesOnlyBetweenSentencesOrWhereTheyWrap() async throws {
        try await CLI.withTemporary { cli in
            var commands: [[String]] = [[]]
            var checked = 0
            while let command = commands.popLast() {
                for width in Self.widths {
                    let help = try await Self.help(command, width: width, cli: cli)
                    for problem in Self.problems(in: help, width: width) {
                        Issue.record("sandbox \(command.joined(separator: " ")) --help at \(width) columns: \(problem)")
                    }
                    if width == Self.widths[0] {
                        commands += Self.subcommands(in: help).map { command + [$0] }
                    }
                }
                checked += 1
            }
            #expect(checked > 40, "every command's help was read (\(checked))")
        }
    }

    /// `sandbox COMMAND… --help` with `COLUMNS=width` (standard output is a file, so the parser
    /// takes the width from there).
    static func help(_ command: [String], width: Int, cli: CLI) async throws -> String {
        let output = try await CLI.program.run(
            command + ["--help"], environment: ["SANDBOX_HOME": cli.home, "COLUMNS": String(width)],
            outputIn: cli.scratch)
        #expect(output.status == 0, "sandbox \(command) --help: \(output.stderr)")
        return output.stdout
    }

    /// The names listed under `SUBCOMMANDS:`.
    static func subcommands(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), line.dropFirst(2).first?.isLetter == true else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
    }

    /// The line breaks in the overview and discussion (the text before `USAGE:`) that fall in the
    /// middle of a sentence although the next word would have fitted, and table rows that 80
    /// columns wrap.
    static func problems(in help: String, width: Int) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.hasPrefix("USAGE:") }
        var problems: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            if isTableRow(line) {
                if line.count >= 80 { problems.append("a table row that 80 columns wrap: “\(line)”") }
                continue
            }
            let nextWord = next.drop { $0 == " " }.prefix { $0 != " " }
            let wrapped = line.count + 1 + nextWord.count > width - 2
            if !endsSentence(line) && !wrapped {
                problems.append("a line broken mid-sentence: “\(line)” / “\(next)”")
            }
        }
        return problems
    }

    /// A row of a two-column table: words, two or more spaces, words.
    static func isTableRow(_ line: Substring) -> Bool {
        line.trimmingCharacters(in: .whitespaces).contains("  ")
    }

    /// Whether `line` ends a sentence (`.`, `:`, `?` or `!`, perhaps before a closing bracket or quote).
    static func endsSentence(_ line: Substring) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces).trimmingCharacters(
            in: CharacterSet(charactersIn: ")\"'”"))
        return [".", ":", "?", "!"].contains { trimmed.hasSuffix($0) }
    }
}
