import Foundation
import Glibc
import Sandbox
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

/// An incomplete snapshot (an app held an item locked past the backup's wait) is said so by
/// `sandbox backup`, marked by `sandbox snapshots`, and `sandbox check` prints its warnings.
@Suite struct IncompleteSnapshotCLITests {
    @Test func backupSnapshotsAndCheckSayTheSnapshotIsIncomplete() async throws {
        try await BackupFixture.with { fixture in
            let preferences = "Library/Preferences/\(BackupFixture.app).plist"
            try fixture.write(preferences, Array("<plist/>".utf8))
            let ready = fixture.scratch.appending("locked")
            let lock = fixture.hostPath("Library/Preferences/.\(BackupFixture.app).plist.lock")
            let app = try await LockTimeoutTests.holdLock(
                fixture, "/usr/bin/flock", ["-x", lock, "/bin/sh", "-c", "touch '\(ready)'; exec sleep 600"],
                ready: ready)
            defer { app.signal(SIGKILL) }
            let repo = fixture.repositoryPath
            let left = "\(BackupFixture.app): \(preferences)"

            let backup = try await fixture.sandbox(["backup", "com.example.notes", repo])
            #expect(backup.status == 0, "\(backup.stderr)")
            #expect(backup.stdout.contains("saved incomplete"), "\(backup.stdout)")
            #expect(backup.stderr.contains("warning: '\(BackupFixture.app)': '\(preferences)'"), "\(backup.stderr)")
            #expect(
                backup.stderr.contains("warning: the snapshot is incomplete: 1 item(s) left out (\(left))"),
                "\(backup.stderr)")

            let listed = try await fixture.sandbox(["snapshots", repo])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = listed.stdout.split(separator: "\n")
            #expect(rows.first == "ID\tTIME\tHOST\tAPPS\tSIZE\tADDED\tSTATE", "\(listed.stdout)")
            #expect(rows.count == 2 && rows[1].hasSuffix("\tincomplete (1 left out: \(left))"), "\(listed.stdout)")
            let json = try await fixture.sandbox(["snapshots", repo, "--json"])
            let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
            #expect(objects?.first?["incomplete"] as? [String] == [left], "\(json.stdout)")

            let check = try await fixture.sandbox(["check", repo])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout.contains("no problems, 1 warning(s)"), "\(check.stdout)")
            #expect(
                check.stderr.contains("warning: Snapshot ") && check.stderr.contains("is incomplete"), "\(check.stderr)"
            )

            // A complete one is marked so: another app's, whose nothing is held.
            _ = try fixture.home.createContainer(for: LockTimeoutTests.other)
            let again = try await fixture.sandbox(["backup", LockTimeoutTests.other.rawValue, repo])
            #expect(again.status == 0 && again.stdout.contains(" saved: "), "\(again.stdout) \(again.stderr)")
            #expect(!again.stderr.contains("incomplete"), "\(again.stderr)")
            let relisted = try await fixture.sandbox(["snapshots", repo])
            #expect(
                relisted.stdout.split(separator: "\n").filter { $0.hasSuffix("\tcomplete") }.count == 1,
                "\(relisted.stdout)")
        }
    }
}
