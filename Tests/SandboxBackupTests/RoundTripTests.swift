import Foundation
import GRDB
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxStore
import SandboxTesting
import Synchronization
import Testing

@Suite struct RoundTripTests {
    /// Fills the container with every kind of item a backup must carry or leave out.
    static func populate(_ fixture: BackupFixture) throws {
        try fixture.write("Documents/a.txt", Array("hello".utf8))
        try fixture.write("Documents/sub/deep/b.bin", ChunkerTestsBytes.make(3 << 20, seed: 7))
        try fixture.write("Documents/run.sh", Array("#!/bin/sh\n".utf8))
        try fixture.write("Library/Application Support/data.json", Array("{\"k\": 1}".utf8))
        try fixture.write("Library/Caches/cache.bin", [1, 2, 3])
        try fixture.write("tmp/scratch.txt", [4, 5, 6])
        try fixture.write("Documents/excluded.txt", [7])
        try fixture.write("Documents/exdir/inside.txt", [8])
        let root = fixture.container.root
        try root.setExcludedFromBackup(true, at: ContainerPath("Documents/excluded.txt"))
        try root.setExcludedFromBackup(true, at: ContainerPath("Documents/exdir"))
        try root.setExtendedAttribute(named: "user.color", to: Array("blue".utf8), at: ContainerPath("Documents/a.txt"))
        try root.setExtendedAttribute(named: "user.kind", to: [0, 1, 2], at: ContainerPath("Documents/sub"))
        #expect(chmod(fixture.hostPath("Documents/a.txt"), 0o600) == 0)
        #expect(chmod(fixture.hostPath("Documents/run.sh"), 0o755) == 0)
        #expect(link(fixture.hostPath("Documents/a.txt"), fixture.hostPath("Documents/sub/hard.txt")) == 0)
        #expect(symlink("a.txt", fixture.hostPath("Documents/link")) == 0)
        #expect(symlink("/nonexistent/elsewhere", fixture.hostPath("Documents/dangling")) == 0)
        var times = [
            timespec(tv_sec: 1_600_000_000, tv_nsec: 123_456_789),
            timespec(tv_sec: 1_600_000_001, tv_nsec: 987_654_321),
        ]
        #expect(utimensat(AT_FDCWD, fixture.hostPath("Documents/run.sh"), &times, 0) == 0)
        let preferences = try Preferences(container: fixture.container)
        try preferences.setValue(.string("dark"), forKey: "theme")
    }

    static func isLeftOut(_ path: String) -> Bool {
        path.hasPrefix("Library/Application Support/app.sqlite") || path.hasSuffix(".plist.lock")
    }

    @Test func aRestoreGivesBackTheContainerByteForByte() async throws {
        try await BackupFixture.with { fixture in
            try Self.populate(fixture)
            let pool = try fixture.container.database(named: "app.sqlite")
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            }
            // A writer that keeps inserting while the backup runs, on a thread of its own.
            let stop = Atomic(false)
            let writer = Thread {
                var index = 0
                while !stop.load(ordering: .relaxed) {
                    index += 1
                    _ = try? pool.write { db in  // the test checks the copy, not each insert
                        try db.execute(
                            sql: "INSERT INTO notes (body) VALUES (?)",
                            arguments: [String(repeating: "x", count: 500) + "\(index)"])
                    }
                }
            }
            writer.start()
            defer { stop.store(true, ordering: .relaxed) }
            try await Task.sleep(for: .milliseconds(100))
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            stop.store(true, ordering: .relaxed)
            let before = try TreeDescription(fixture.container.homeDirectory) {
                Self.isLeftOut($0) || $0.hasPrefix("Library/Caches/") || $0.hasPrefix("tmp/")
                    || $0.hasPrefix("Documents/exdir") || $0 == "Documents/excluded.txt"
            }
            // Change everything, then restore.
            #expect(unlink(fixture.hostPath("Documents/a.txt")) == 0)
            try fixture.write("Documents/new.txt", [9, 9])
            try fixture.write("Library/Caches/more.bin", [1])
            let restored = try await Restore.run(
                app: BackupFixture.app,
                snapshot: try await repository.snapshot(matching: String(report.snapshot.prefix(8))),
                from: repository, into: fixture.home)
            #expect(restored.notes.isEmpty)
            let after = try TreeDescription(fixture.container.homeDirectory) { Self.isLeftOut($0) }
            #expect(after == before, "\(after)\n---\n\(before)")
            for empty in ["Library/Caches", "tmp"] {
                #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.hostPath(empty)).isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Documents/excluded.txt")))
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Documents/exdir")))
            // The database copied while it was written opens and passes its integrity check.
            let database = try DatabaseQueue(path: fixture.hostPath("Library/Application Support/app.sqlite"))
            let (integrity, rows) = try await database.read { db in
                (
                    try String.fetchOne(db, sql: "PRAGMA integrity_check"),
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM notes")
                )
            }
            #expect(integrity == "ok")
            #expect((rows ?? 0) > 0)
            // Preferences came back through their file.
            // (A Container opened before the restore holds the replaced directory: open it again.)
            let reopened = try fixture.home.container(for: BackupFixture.app)
            #expect(try Preferences(container: reopened).value(forKey: "theme") == .string("dark"))
            // The manifest is iOS-shaped.
            let check = try await Checker.check(repository, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
        }
    }
}

/// Reproducible pseudo-random bytes for the tests.
enum ChunkerTestsBytes {
    static func make(_ count: Int, seed: UInt64) -> [UInt8] {
        ChunkerTests.pseudoRandom(count, seed: seed)
    }
}
