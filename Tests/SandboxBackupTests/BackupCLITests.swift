import Foundation
import Glibc
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

@Suite struct BackupCLITests {
    @Test func backupSnapshotsCheckRestoreAndPruneFromTheCommandLine() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("first".utf8))
            let passwordFile = fixture.scratch.appending("password")
            try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: passwordFile))
            let repo = fixture.repositoryPath
            let backup = try await fixture.sandbox(
                ["backup", "com.example.notes", repo, "--password-file", passwordFile, "--json"])
            #expect(backup.status == 0, "\(backup.stderr)")
            let lines = backup.stdout.split(separator: "\n")
            #expect(lines.last?.contains("\"event\":\"finished\"") == true)
            #expect(lines.contains { $0.contains("\"event\":\"progress\"") })

            try fixture.write("Documents/a.txt", Array("second".utf8))
            #expect(
                try await fixture.sandbox(["backup", "com.example.notes", repo, "--password-file", passwordFile]).status
                    == 0)

            let listed = try await fixture.sandbox(["snapshots", repo, "--password-file", passwordFile, "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let ids = try JSONDecoder().decode([[String: AnyCodable]].self, from: Data(listed.stdout.utf8)).compactMap {
                $0["id"]?.string
            }
            #expect(ids.count == 2)

            let wrong = try await fixture.sandbox(["snapshots", repo])
            #expect(wrong.status == 1)
            #expect(wrong.stderr.contains("[wrong-password]"))

            let check = try await fixture.sandbox(["check", repo, "--read-data", "--password-file", passwordFile])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout.contains("no problems"))

            let restore = try await fixture.sandbox([
                "restore", "com.example.notes", repo, "--snapshot", String(ids[0].prefix(8)), "--password-file",
                passwordFile,
            ])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "first")

            let prune = try await fixture.sandbox(["prune", repo, "--keep-last", "1", "--password-file", passwordFile])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("removed 1"))
        }
    }
}

/// Just enough of a JSON value to read ids from `--json` output.
struct AnyCodable: Decodable {
    var string: String?

    init(from decoder: any Decoder) throws {
        string = try? decoder.singleValueContainer().decode(String.self)  // other types are not needed
    }
}
