import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// `sandbox restore --to-inbox PATH`: one file of a snapshot delivered into `Documents/Inbox`
/// through the Inbox's delivery, from an encrypted repository, numbered on a collision; a folder
/// refused.
@Suite struct InboxRestoreTests {
    @Test func aFileIsDeliveredIntoTheInboxNumberedOnCollision() async throws {
        try await BackupFixture.with { fixture in
            let contents = ChunkerTests.pseudoRandom(3 << 20 + 17, seed: 11)  // several chunks
            try fixture.write("Documents/report.pdf", contents)
            let password = fixture.scratch.appending("pass")
            try Data("correct horse\n".utf8).write(to: URL(fileURLWithPath: password))
            let backup = try await fixture.sandbox([
                "backup", "com.example.notes", fixture.repositoryPath, "--password-file", password,
            ])
            #expect(backup.status == 0, "\(backup.stderr)")
            try fixture.write("Documents/report.pdf", Array("changed since".utf8))
            let before = try TreeDescription(fixture.container.homeDirectory)
            for expected in ["report.pdf", "report 2.pdf"] {
                let delivered = try await fixture.sandbox([
                    "restore", "com.example.notes", fixture.repositoryPath, "--password-file", password,
                    "--to-inbox", "Documents/report.pdf",
                ])
                #expect(delivered.status == 0, "\(delivered.stderr)")
                #expect(delivered.stdout.contains("Documents/Inbox/\(expected)"), "\(delivered.stdout)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/Inbox/\(expected)")))
                #expect(bytes == Data(contents), "\(expected) differs")
            }
            // Nothing else changed: only the two deliveries are new.
            let after = try TreeDescription(fixture.container.homeDirectory) {
                $0.hasPrefix("Documents/Inbox/report")
            }
            #expect(after == before)
        }
    }

    @Test func aFolderIsRefusedAndNothingIsDelivered() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/folder/a.txt", [1, 2, 3])
            let repository = try fixture.repository()
            let snapshot = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let before = try TreeDescription(fixture.container.homeDirectory)
            let error = failure { () throws(SandboxError) in
                _ = try Restore.deliverToInbox(
                    app: BackupFixture.app, snapshot: try repository.snapshot(matching: snapshot.snapshot),
                    path: "Documents/folder", from: repository, into: fixture.home)
            }
            #expect(error?.code == .isADirectory, "\(String(describing: error))")
            let missing = failure { () throws(SandboxError) in
                _ = try Restore.deliverToInbox(
                    app: BackupFixture.app, snapshot: try repository.snapshot(matching: snapshot.snapshot),
                    path: "Documents/none.txt", from: repository, into: fixture.home)
            }
            #expect(missing?.code == .notFound, "\(String(describing: missing))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
        }
    }

    @Test func aHugeFileIsDeliveredInBoundedMemoryFromAnEncryptedRepository() async throws {
        try await BackupFixture.with { fixture in
            let size: Int64 = 192 << 20
            let huge = fixture.hostPath("Documents/huge.bin")
            try fixture.write("Documents/huge.bin", [])
            #expect(truncate(huge, off_t(size)) == 0)
            let password = fixture.scratch.appending("pass")
            try Data("correct horse\n".utf8).write(to: URL(fileURLWithPath: password))
            let backup = try await fixture.sandbox([
                "backup", "com.example.notes", fixture.repositoryPath, "--password-file", password,
            ])
            #expect(backup.status == 0, "\(backup.stderr)")
            let rss = fixture.scratch.appending("rss")
            let run = try await BuiltProgram(path: "/usr/bin/time").run(
                [
                    "-f", "%M", "-o", rss, try BuiltProgram("sandbox").path, "restore", "com.example.notes",
                    fixture.repositoryPath, "--password-file", password, "--to-inbox", "Documents/huge.bin",
                ],
                environment: ["SANDBOX_HOME": fixture.home.location], outputIn: fixture.scratch.path)
            #expect(run.status == 0, "\(run.stderr)")
            let same = try await BuiltProgram(path: "/usr/bin/cmp").run(
                ["-s", fixture.hostPath("Documents/Inbox/huge.bin"), huge], outputIn: fixture.scratch.path)
            #expect(same.status == 0)
            let reported = try String(contentsOfFile: rss, encoding: .utf8)
            let kilobytes = try #require(Int64(reported.trimmingCharacters(in: .whitespacesAndNewlines)), "\(reported)")
            // One chunk (8 MiB at most) in flight, not the file: well under half of it.
            #expect(kilobytes * 1024 < size / 2, "peak RSS \(kilobytes) KiB")
            print("restore --to-inbox of \(size >> 20) MiB (encrypted): peak RSS \(kilobytes) KiB")
        }
    }
}
