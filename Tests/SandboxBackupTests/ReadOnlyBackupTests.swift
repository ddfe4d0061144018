import Foundation
import GRDB
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// Reading a container for a backup writes nothing to it: no `-wal` or `-shm` appears beside a
/// WAL database, no time moves — and what a live writer committed to its WAL is in the snapshot.
@Suite struct ReadOnlyBackupTests {
    /// Every item under `folder` with its type, size and modification time, the folder's own too.
    static func state(of folder: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) + ["."] {
            var info = stat()
            guard lstat(folder + "/" + name, &info) == 0 else { throw TestFailure("lstat \(name)") }
            result[name] =
                "mode=\(String(info.st_mode, radix: 8)) size=\(info.st_size) mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return result
    }

    @Test func aWALDatabaseIsReadWithoutWritingBesideIt() async throws {
        try await BackupFixture.with { fixture in
            let folder = fixture.hostPath("Library/Application Support")
            try fixture.write("Library/Application Support/.keep", [])
            let pool = try DatabasePool(path: folder + "/app.sqlite")
            try await pool.write { db in try db.execute(sql: "CREATE TABLE t (v); INSERT INTO t VALUES ('kept')") }
            try pool.close()
            let before = try Self.state(of: folder)
            #expect(before["app.sqlite-wal"] == nil && before["app.sqlite-shm"] == nil)
            let report = try await Backup.run(
                apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            #expect(report.incomplete.isEmpty)
            #expect(try Self.state(of: folder) == before)
        }
    }

    @Test func aLiveWritersWALIsInTheSnapshotAndNothingMoves() async throws {
        try await BackupFixture.with { fixture in
            let folder = fixture.hostPath("Library/Application Support")
            try fixture.write("Library/Application Support/.keep", [])
            let ready = fixture.scratch.appending("written")
            // The app: commits to its WAL, never checkpoints, stays open.
            let script = """
                import sqlite3, sys, time
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA wal_autocheckpoint=0")
                db.execute("CREATE TABLE t (v)")
                for i in range(100): db.execute("INSERT INTO t VALUES (?)", ("row %d" % i,))
                open(sys.argv[2], "w").close(); time.sleep(600)
                """
            let app = try BuiltProgram(path: "/usr/bin/python3").start(
                ["-c", script, folder + "/app.sqlite", ready], outputIn: fixture.scratch.path)
            defer { app.signal(SIGKILL) }
            #expect(await eventually { FileManager.default.fileExists(atPath: ready) })
            let before = try Self.state(of: folder)
            #expect(before["app.sqlite-wal"] != nil)
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            #expect(report.incomplete.isEmpty)
            #expect(try Self.state(of: folder) == before)
            let (other, _) = try fixture.otherDevice()
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                into: other)
            let restored = try DatabaseQueue(
                path: try other.container(for: BackupFixture.app).homeDirectory
                    + "/Library/Application Support/app.sqlite")
            #expect(try await restored.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 100)
            try restored.close()
        }
    }
}
