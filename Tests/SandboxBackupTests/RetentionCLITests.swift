import Foundation
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// `sandbox prune` with restic's rules, on a real repository: a dry run lists and removes nothing,
/// no rule is refused, and the rules' union is what stays.
@Suite struct RetentionCLITests {
    @Test func dryRunListsWhyAndNoRuleIsRefused() async throws {
        try await BackupFixture.with { fixture in
            let repo = fixture.repositoryPath
            for round in 1...3 {
                try fixture.write("Documents/a.txt", Array("round \(round)".utf8))
                let backup = try await fixture.sandbox(["backup", "com.example.notes", repo])
                #expect(backup.status == 0, "\(backup.stderr)")
            }
            let snapshotFiles = { try FileManager.default.contentsOfDirectory(atPath: repo + "/snapshots").count }
            #expect(try snapshotFiles() == 3)

            let none = try await fixture.sandbox(["prune", repo])
            #expect(none.status != 0)
            #expect(none.stderr.contains("[invalid-argument]"), "\(none.stderr)")
            #expect(none.stderr.contains("--keep-within"))
            #expect(try snapshotFiles() == 3)

            let dry = try await fixture.sandbox(["prune", repo, "--keep-last", "1", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            let lines = dry.stdout.split(separator: "\n")
            #expect(lines.filter { $0.hasPrefix("keep\t") }.count == 1)
            #expect(lines.filter { $0.hasPrefix("remove\t") }.count == 2)
            #expect(lines.first?.hasSuffix("last snapshot") == true)
            #expect(dry.stdout.contains("nothing was removed"))
            #expect(try snapshotFiles() == 3)

            // Every snapshot was taken within the last 2d3h of the newest: none goes.
            let within = try await fixture.sandbox([
                "prune", repo, "--keep-within", "2d3h", "--keep-daily", "unlimited",
            ])
            #expect(within.status == 0, "\(within.stderr)")
            #expect(within.stdout.contains("removed 0"))
            #expect(try snapshotFiles() == 3)

            let bad = try await fixture.sandbox(["prune", repo, "--keep-within", "2x"])
            #expect(bad.status != 0)
            #expect(bad.stderr.contains("'2x'"))

            let prune = try await fixture.sandbox(["prune", repo, "--keep-last", "1"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("removed 2"))
            #expect(try snapshotFiles() == 1)
            let check = try await fixture.sandbox(["check", repo, "--read-data"])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
