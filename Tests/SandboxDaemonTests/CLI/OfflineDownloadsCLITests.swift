import Foundation
import GRDB
import Glibc
import SandboxDaemon
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

@testable import SandboxDaemon

/// `sandbox downloads APP` while `sandboxd` is not running: the tasks its queue recorded, read
/// read-only (never created, migrated or written), with the bytes the interrupted ones have on
/// disk — and nothing the queue names makes it print or measure a file outside the container.
@Suite(.serialized) struct OfflineDownloadsCLITests {
    /// The daemon SIGKILLed mid-transfer: the listing shows the task interrupted, with its partial
    /// file's size, says the daemon is not running, and does not start it.
    @Test func downloadsListsTheTasksOnDiskWithTheDaemonKilled() async throws {
        let server = try await NginxServer.start(slowRate: "2m")
        let payload = TestData.bytes(64 << 20, seed: 61)
        try server.serve(payload, as: "big.bin")
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            let url = server.url("/slow/big.bin")
            let submitted = try await fixture.sandbox("download", app, url, "--background")
            #expect(submitted.status == 0 && submitted.stdout == "1\n", "\(submitted.stderr)")
            let session = BackgroundQueueSchema.downloadSession(of: "cli")
            let partial = {
                try DownloadSession.storedTasks(identifier: session, container: fixture.container).first?.bytesOnDisk
            }
            #expect(try await eventually(timeout: .seconds(30)) { try partial() ?? 0 >= 512 << 10 })
            fixture.killDaemons()
            #expect(await eventually { fixture.daemonPIDs().isEmpty })
            let onDisk = try #require(try partial())
            #expect(onDisk > 0 && onDisk < payload.count)
            let queueBefore = try Self.queueFiles(fixture)

            let json = try await fixture.sandbox("downloads", app, "--json")
            #expect(json.status == 0, "\(json.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let row = try #require(rows.first { $0["background"] as? Bool == true }, "\(json.stdout)")
            #expect(row["taskIdentifier"] as? Int == 1 && row["url"] as? String == url, "\(row)")
            #expect(row["state"] as? String == "interrupted", "\(row)")
            #expect(row["bytes"] as? Int == Int(onDisk), "\(row)")
            #expect(row["total"] as? Int == payload.count, "\(row)")
            #expect(row["daemonRunning"] as? Bool == false, "\(row)")
            #expect(json.stderr.contains("sandboxd is not running"), "\(json.stderr)")

            let text = try await fixture.sandbox("downloads", app)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(
                text.stdout.split(separator: "\n").contains("B1\tinterrupted\t\(onDisk)\t\(payload.count)\t\(url)\t"),
                "\(text.stdout)")
            #expect(fixture.daemonPIDs().isEmpty, "listing started sandboxd")
            #expect(try Self.queueFiles(fixture) == queueBefore, "listing changed the queue")
        }
        await server.stop()
    }

    /// Rows the queue holds are not trusted to name files: a finished file outside the container
    /// is not printed, a session name that climbs out is not looked up (its partial is not
    /// measured), and another app's rows are not read.
    @Test func namesInTheQueueNeverReachOutsideTheContainer() async throws {
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            // A partial and a checkpoint-like folder outside the container, where the hostile
            // session name would lead if it were joined to a path.
            let outside = fixture.scratch.appending("home/escape")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data(repeating: 7, count: 12_345).write(to: URL(fileURLWithPath: outside + "/partial"))
            try fixture.paths.prepare()
            let queue = try EventQueue(path: fixture.paths.queue)
            let request = BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/x.bin"))))
            let cli = SessionKey(app: app, session: "cli")
            for path in ["../../../../../etc/passwd", "/etc/passwd"] {
                let id = try queue.addTask(request, to: cli)
                try queue.updateTask(cli, id, .finished(path: path))
                try queue.updateTask(cli, id, .completed(errorCode: nil, bytesWritten: 100, expectedLength: 100))
            }
            let climbing = SessionKey(app: app, session: "../../../../escape")
            let id = try queue.addTask(request, to: climbing)
            try queue.updateTask(climbing, id, .running(underlying: 1))
            let other = SessionKey(app: "com.example.other", session: "cli")
            let secret = BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/secret.bin"))))
            let otherID = try queue.addTask(secret, to: other)
            try queue.updateTask(other, otherID, .finished(path: "Documents/secret.bin"))
            let queueBefore = try Self.queueFiles(fixture)

            let json = try await fixture.sandbox("downloads", app, "--json")
            #expect(json.status == 0, "\(json.stderr)")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(rows.count == 3, "\(json.stdout)")
            #expect(rows.allSatisfy { $0["path"] == nil }, "\(json.stdout)")
            #expect(!json.stdout.contains("passwd") && !json.stdout.contains("secret"), "\(json.stdout)")
            let climbed = try #require(rows.first { $0["sessionIdentifier"] as? String == climbing.session })
            #expect(climbed["state"] as? String == "interrupted" && climbed["bytes"] as? Int == 0, "\(climbed)")
            #expect(json.stderr.contains("cannot be measured"), "\(json.stderr)")
            #expect(!json.stderr.contains("12345"))
            let text = try await fixture.sandbox("downloads", app)
            #expect(text.status == 0 && !text.stdout.contains("passwd"), "\(text.stdout)")
            #expect(fixture.daemonPIDs().isEmpty, "listing started sandboxd")
            #expect(try Self.queueFiles(fixture) == queueBefore, "listing changed the queue")
        }
    }

    /// No queue (the daemon never ran): nothing is listed and nothing is created. A queue a newer
    /// daemon migrated, or one that is not a database, fails with a message naming it; an older
    /// schema is read as it is, not migrated.
    @Test func aMissingNewerOrDamagedQueueIsReportedNeverCreatedOrMigrated() async throws {
        try await DaemonFixture.with { fixture in
            let app = DaemonFixture.app
            let path = fixture.paths.queue
            let none = try await fixture.sandbox("downloads", app)
            #expect(none.status == 0 && none.stdout == "ID\tSTATE\tBYTES\tTOTAL\tURL\tPATH\n", "\(none.stderr)")
            #expect(none.stderr.isEmpty, "\(none.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
            #expect(fixture.daemonPIDs().isEmpty)

            try fixture.paths.prepare()
            let queue = try EventQueue(path: path)
            let request = BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/x.bin"))))
            _ = try queue.addTask(request, to: SessionKey(app: app, session: "cli"))
            // The first schema only: no relaunch table, and its migration not recorded.
            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "DROP TABLE relaunch")
                try db.execute(
                    sql: "DELETE FROM grdb_migrations WHERE identifier = ?",
                    arguments: [BackgroundQueueSchema.relaunch])
            }
            let older = try await fixture.sandbox("downloads", app, "--json")
            #expect(older.status == 0 && older.stdout.contains("\"taskIdentifier\":1"), "\(older.stderr)")
            let migrations = try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
            #expect(migrations == [BackgroundQueueSchema.tasksAndEvents])

            try await DatabaseQueue(path: path).write { db in
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9 from the future')")
            }
            let newer = try await fixture.sandbox("downloads", app)
            #expect(newer.status == 1, "\(newer.stdout)")
            #expect(newer.stderr.contains("migrated by a newer sandboxd (v9 from the future)"), "\(newer.stderr)")
            #expect(newer.stderr.contains(path) && newer.stderr.hasSuffix("[unsupported]\n"), "\(newer.stderr)")

            for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            try Data(repeating: 0x41, count: 8_192).write(to: URL(fileURLWithPath: path))
            let damaged = try await fixture.sandbox("downloads", app)
            #expect(damaged.status == 1, "\(damaged.stdout)")
            #expect(damaged.stderr.contains("sandboxd's queue '\(path)' cannot be read"), "\(damaged.stderr)")
            #expect(damaged.stderr.hasSuffix("[corrupt]\n"), "\(damaged.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 0x41, count: 8_192))
            #expect(fixture.daemonPIDs().isEmpty)
        }
    }

    /// The queue and its write-ahead log, byte for byte (the `-shm` index is SQLite's scratch).
    private static func queueFiles(_ fixture: DaemonFixture) throws -> [Data?] {
        [fixture.paths.queue, fixture.paths.queue + "-wal"].map { FileManager.default.contents(atPath: $0) }
    }
}
