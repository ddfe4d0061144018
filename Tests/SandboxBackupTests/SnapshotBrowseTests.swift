import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// `sandbox backup ls`, `diff` and `dump` on real repositories, and the hostile cases: paths with
/// `..` or absolute, links in the snapshot, forged trees, ambiguous ids, a huge file.
@Suite struct SnapshotBrowseTests {
    /// Two snapshots: the first with `a.txt`, `sub/b.bin` and a link; the second with `a.txt`
    /// changed, `sub/b.bin` removed and `c.txt` added. Returns their ids, oldest first.
    static func twoSnapshots(_ fixture: BackupFixture) async throws -> [String] {
        try fixture.write("Documents/a.txt", Array("first".utf8))
        try fixture.write("Documents/sub/b.bin", [1, 2, 3])
        #expect(symlink("a.txt", fixture.hostPath("Documents/link")) == 0)
        let first = try await fixture.sandbox(["backup", "com.example.notes", fixture.repositoryPath])
        #expect(first.status == 0, "\(first.stderr)")
        try fixture.write("Documents/a.txt", Array("second!".utf8))
        try fixture.write("Documents/c.txt", Array("new".utf8))
        try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/sub/b.bin"))
        let second = try await fixture.sandbox(["backup", "com.example.notes", fixture.repositoryPath])
        #expect(second.status == 0, "\(second.stderr)")
        return try await fixture.repository().snapshots().map(\.id)
    }

    @Test func lsDiffAndDumpReadSnapshotsWithoutRestoring() async throws {
        try await BackupFixture.with { fixture in
            let ids = try await Self.twoSnapshots(fixture)
            let repo = fixture.repositoryPath
            let apps = try await fixture.sandbox(["backup", "ls", repo, "latest"])
            #expect(apps.status == 0, "\(apps.stderr)")
            #expect(apps.stdout.hasPrefix("com.example.notes\t"))

            let listed = try await fixture.sandbox([
                "backup", "ls", repo, String(ids[0].prefix(8)), "com.example.notes", "Documents",
            ])
            #expect(listed.status == 0, "\(listed.stderr)")
            let names = listed.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").last }
            #expect(names == ["Documents/Inbox/", "Documents/a.txt", "Documents/link -> a.txt", "Documents/sub/"])

            let diff = try await fixture.sandbox(["backup", "diff", repo, ids[0], ids[1]])
            #expect(diff.status == 0, "\(diff.stderr)")
            let changes = Set(
                diff.stdout.split(separator: "\n").map { $0.split(separator: "\t").prefix(3).joined(separator: " ") })
            #expect(
                changes == [
                    "M com.example.notes Documents/a.txt", "+ com.example.notes Documents/c.txt",
                    "- com.example.notes Documents/sub/b.bin",
                ])
            #expect(diff.stdout.contains("5 B -> 7 B"))

            let dump = try await fixture.sandbox([
                "backup", "dump", repo, String(ids[0].prefix(8)), "com.example.notes", "Documents/a.txt",
            ])
            #expect(dump.status == 0, "\(dump.stderr)")
            #expect(dump.stdout == "first")
            // The live container was not touched.
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "second!")
        }
    }

    @Test func snapshotsShowTheirSizeAndWhatEachAdded() async throws {
        try await BackupFixture.with { fixture in
            let ids = try await Self.twoSnapshots(fixture)
            let unchanged = try await fixture.sandbox(["backup", "com.example.notes", fixture.repositoryPath])
            #expect(unchanged.status == 0, "\(unchanged.stderr)")
            let repository = try fixture.repository()
            let snapshots = try await repository.snapshots()
            let sizes = try await SnapshotBrowser.sizes(of: snapshots, from: repository)
            #expect(sizes[ids[0]]?.total == snapshots[0].record.apps[0].bytes)
            #expect((sizes[ids[0]]?.added ?? 0) > 0)
            // The second stored the changed a.txt (7 bytes), c.txt (3) and a new tree and manifest.
            #expect((sizes[ids[1]]?.added ?? 0) > 10)
            // Nothing changed: no file contents added (at most a new tree or manifest, as times moved).
            #expect((sizes[snapshots[2].id]?.added ?? .max) < (sizes[ids[0]]?.added ?? 0))
            let listed = try await fixture.sandbox(["snapshots", fixture.repositoryPath])
            #expect(listed.stdout.hasPrefix("ID\tTIME\tHOST\tAPPS\tSIZE\tADDED\tSTATE\n"))
            #expect(listed.stdout.split(separator: "\n").last?.hasSuffix("\tcomplete") == true, "\(listed.stdout)")
        }
    }

    @Test func dumpRefusesFoldersLinksDotDotAndAbsolutePaths() async throws {
        try await BackupFixture.with { fixture in
            _ = try await Self.twoSnapshots(fixture)
            let repo = fixture.repositoryPath
            let cases: [(String, String)] = [
                ("Documents/sub", "[is-a-directory]"), ("Documents/link", "links are not followed"),
                ("Documents/sub/../a.txt", "[invalid-path]"), ("/etc/passwd", "[escapes-container]"),
                ("../../etc/passwd", "[escapes-container]"), ("Documents/missing", "[not-found]"),
                ("Documents/link/x", "[not-found]"),
            ]
            for (path, expected) in cases {
                let dump = try await fixture.sandbox([
                    "backup", "dump", repo, "latest", "com.example.notes", path,
                ])
                #expect(dump.status != 0, "\(path)")
                #expect(dump.stdout.isEmpty, "\(path)")
                #expect(dump.stderr.contains(expected), "\(path): \(dump.stderr)")
            }
            let ls = try await fixture.sandbox(["backup", "ls", repo, "latest", "com.example.notes", "Documents/../.."])
            #expect(ls.stderr.contains("[escapes-container]"), "\(ls.stderr)")
        }
    }

    @Test(arguments: ["../escape.txt", "/etc/escape.txt", "Documents/./x"])
    func aForgedTreeIsRefusedByEveryReader(path: String) async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            let forged = try ForgedSnapshotTests.forge(
                [ForgedSnapshotTests.node(path, .file)], in: repository, home: fixture.home)
            let app = BackupFixture.app.rawValue
            let listing = failure { () throws(SandboxError) in
                _ = try SnapshotBrowser.list(forged, app: app, path: nil, from: repository)
            }
            #expect(listing?.code == .repositoryDamaged)
            let dump = failure { () throws(SandboxError) in
                _ = try SnapshotBrowser.dump(forged, app: app, path: "Documents/x", from: repository, to: -1)
            }
            #expect(dump?.code == .repositoryDamaged)
            let diff = failure { () throws(SandboxError) in
                _ = try SnapshotBrowser.diff(forged, forged, from: repository)
            }
            #expect(diff?.code == .repositoryDamaged)
        }
    }

    @Test func anAmbiguousIdPrefixIsRefusedNamingHowManyMatch() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            var seen: [String: String] = [:]
            var collision: String?
            // Four hex digits: two of ~1,000 records share a prefix with near certainty (birthday bound).
            for number in 0..<5_000 where collision == nil {
                let record = SnapshotRecord(
                    time: Date(timeIntervalSince1970: Double(number)), hostname: "h", device: nil, home: "/",
                    apps: [], parent: nil)
                let id = try repository.storeRecord(record, kind: .snapshot)
                let prefix = String(id.prefix(4))
                if seen[prefix] != nil { collision = prefix }
                seen[prefix] = id
            }
            let prefix = try #require(collision)
            let error = failure { () throws(SandboxError) in _ = try repository.snapshot(matching: prefix) }
            #expect(error?.code == .notFound)
            #expect(error?.message.contains("(2 do)") == true)
        }
    }

    @Test func aHugeFileIsDumpedInBoundedMemory() async throws {
        try await BackupFixture.with { fixture in
            let size: Int64 = 192 << 20
            let huge = fixture.hostPath("Documents/huge.bin")
            try fixture.write("Documents/huge.bin", [])
            #expect(truncate(huge, off_t(size)) == 0)
            let backup = try await fixture.sandbox(["backup", "com.example.notes", fixture.repositoryPath])
            #expect(backup.status == 0, "\(backup.stderr)")
            let out = fixture.scratch.appending("dumped")
            let rss = fixture.scratch.appending("rss")
            let sandbox = try BuiltProgram("sandbox").path
            let run = try await BuiltProgram(path: "/usr/bin/time").run(
                [
                    "-f", "%M", "-o", rss, "/bin/sh", "-c", "exec \"$0\" \"$@\" > '\(out)'", sandbox, "backup", "dump",
                    fixture.repositoryPath, "latest", "com.example.notes", "Documents/huge.bin",
                ],
                environment: ["SANDBOX_HOME": fixture.home.location], outputIn: fixture.scratch.path)
            #expect(run.status == 0, "\(run.stderr)")
            let attributes = try FileManager.default.attributesOfItem(atPath: out)
            #expect((attributes[.size] as? NSNumber)?.int64Value == size)
            let same = try await BuiltProgram(path: "/usr/bin/cmp").run(
                ["-s", out, huge], outputIn: fixture.scratch.path)
            #expect(same.status == 0)
            let reported = try String(contentsOfFile: rss, encoding: .utf8)
            let kilobytes = try #require(Int64(reported.trimmingCharacters(in: .whitespacesAndNewlines)), "\(reported)")
            // One chunk (8 MiB at most) in flight, not the file: well under half of it.
            #expect(kilobytes * 1024 < size / 2, "peak RSS \(kilobytes) KiB")
            print("backup dump of \(size >> 20) MiB: peak RSS \(kilobytes) KiB")
        }
    }
}
