import Foundation
import GRDB
import SandboxTransfer

/// The daemon's durable state: its background tasks and the events apps have not handled yet.
///
/// SQLite (through GRDB) rather than the session's checkpoint files: delivering each event exactly
/// once, in order, needs an append that survives a kill and an acknowledgement that removes exactly
/// the events the app handled — two statements that must commit together or not at all. A
/// transaction gives that; a checkpoint file rewritten per event would need its own journal. The
/// transfers themselves still resume from the session's checkpoints.
final class EventQueue: Sendable {
    private let database: DatabaseQueue

    /// Opens (creating if needed) the queue at `path`.
    ///
    /// - Throws: ``TransferError/Code/corrupt`` when the file is not a usable database.
    init(path: String) throws(TransferError) {
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            // Write-ahead log with `synchronous = NORMAL`: a commit is an append to the log, with
            // no fsync (the log is synced at checkpoints). A commit survives the daemon's or the
            // app's SIGKILL and crash (the log is in the kernel's page cache) — the guarantee the
            // queue promises; only a power cut can lose the last commits. The default (a rollback
            // journal, `synchronous = FULL`) cost two to three fsyncs per event, which bounded a
            // batch of small background downloads at ~30 tasks/s (BENCHMARKS.md, issue 13).
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            database = try DatabaseQueue(path: path, configuration: configuration)
            var migrator = DatabaseMigrator()
            migrator.registerMigration("v1") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE task (
                            app TEXT NOT NULL, session TEXT NOT NULL, id INTEGER NOT NULL,
                            url TEXT NOT NULL, request TEXT NOT NULL, state TEXT NOT NULL,
                            underlying INTEGER, bytesWritten INTEGER NOT NULL DEFAULT 0, expectedLength INTEGER,
                            path TEXT, errorCode TEXT,
                            PRIMARY KEY (app, session, id));
                        CREATE TABLE event (
                            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                            app TEXT NOT NULL, session TEXT NOT NULL, body TEXT NOT NULL,
                            createdAt REAL NOT NULL);
                        CREATE INDEX event_session ON event (app, session, sequence);
                        """)
            }
            migrator.registerMigration("v2 relaunch") { db in
                try db.execute(
                    sql: """
                        CREATE TABLE relaunch (
                            app TEXT NOT NULL, session TEXT NOT NULL, command TEXT NOT NULL,
                            PRIMARY KEY (app, session));
                        """)
            }
            try migrator.migrate(database)
        } catch {
            throw TransferError(
                .corrupt,
                "sandboxd's queue '\(path)' cannot be opened: \(error). Stop sandboxd and move the file away to start afresh (its queued events are lost).",
                path: path, cause: error)
        }
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws(TransferError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw TransferError(.corrupt, "sandboxd could not \(what) in its queue: \(error).", cause: error)
        }
    }

    /// `value` as the JSON text stored in a row. Encoding these plain records does not fail in
    /// practice; if it ever did, nothing is stored (an empty body would lose the record silently).
    private static func json(_ value: some Encodable, _ what: String) throws(TransferError) -> String {
        do {
            return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        } catch {
            throw TransferError(.corrupt, "sandboxd could not encode a \(what) for its queue: \(error).", cause: error)
        }
    }

    private func read<T>(_ what: String, _ body: (Database) throws -> T) throws(TransferError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw TransferError(.corrupt, "sandboxd could not \(what) in its queue: \(error).", cause: error)
        }
    }

    // MARK: Tasks

    /// Records a new task of `key` and returns its identifier (one more than the session's largest).
    func addTask(_ request: BackgroundRequest, to key: SessionKey) throws(TransferError) -> Int {
        let body = try Self.json(request, "task")
        return try write("record a task") { db in
            let largest =
                try Int.fetchOne(
                    db, sql: "SELECT MAX(id) FROM task WHERE app = ? AND session = ?",
                    arguments: [key.app, key.session])
                ?? 0
            try db.execute(
                sql: "INSERT INTO task (app, session, id, url, request, state) VALUES (?, ?, ?, ?, ?, 'waiting')",
                arguments: [key.app, key.session, largest + 1, request.url, body])
            return largest + 1
        }
    }

    /// A task's stored row.
    struct StoredTask: Sendable {
        var key: SessionKey
        var info: BackgroundTaskInfo
        var request: BackgroundRequest
        var underlying: Int?
    }

    /// Updates a task's listing (and which session task runs it now).
    func updateTask(_ key: SessionKey, _ id: Int, _ change: (inout StoredTask) -> Void) throws(TransferError) {
        try write("update task \(id)") { db in
            guard var task = try Self.fetchTasks(db, key.app, key.session, id: id).first else { return }
            change(&task)
            try db.execute(
                sql: """
                    UPDATE task SET state = ?, underlying = ?, bytesWritten = ?, expectedLength = ?, path = ?,
                        errorCode = ? WHERE app = ? AND session = ? AND id = ?
                    """,
                arguments: [
                    task.info.state.rawValue, task.underlying, task.info.bytesWritten, task.info.expectedLength,
                    task.info.path, task.info.errorCode, key.app, key.session, id,
                ])
        }
    }

    /// The tasks of `app` (of its session `session` when given), or of every app.
    func tasks(app: String? = nil, session: String? = nil) throws(TransferError) -> [StoredTask] {
        try read("list tasks") { db in try Self.fetchTasks(db, app, session) }
    }

    private static func fetchTasks(
        _ db: Database, _ app: String?, _ session: String?, id: Int? = nil
    ) throws -> [StoredTask] {
        var sql = "SELECT * FROM task WHERE 1"
        var arguments: StatementArguments = []
        if let app {
            sql += " AND app = ?"
            arguments += [app]
        }
        if let session {
            sql += " AND session = ?"
            arguments += [session]
        }
        if let id {
            sql += " AND id = ?"
            arguments += [id]
        }
        return try Row.fetchAll(db, sql: sql + " ORDER BY app, session, id", arguments: arguments).compactMap { row in
            let body: String = row["request"]
            guard let request = try? JSONDecoder().decode(BackgroundRequest.self, from: Data(body.utf8)),
                let state = DownloadTaskState(rawValue: row["state"])
            else { return nil }  // a row this version cannot read: left alone
            let info = BackgroundTaskInfo(
                session: row["session"], taskID: row["id"], url: row["url"], state: state,
                bytesWritten: row["bytesWritten"], expectedLength: row["expectedLength"], path: row["path"],
                errorCode: row["errorCode"])
            return StoredTask(
                key: SessionKey(app: row["app"], session: row["session"]), info: info, request: request,
                underlying: row["underlying"])
        }
    }

    // MARK: Events

    /// Appends `event` to `key`'s queue; returns it with its sequence number.
    func append(_ event: BackgroundEventRecord, for key: SessionKey) throws(TransferError) -> BackgroundEventRecord {
        var event = event
        let body = try Self.json(event, "event")
        event.sequence = try write("queue an event") { db in
            try db.execute(
                sql: "INSERT INTO event (app, session, body, createdAt) VALUES (?, ?, ?, ?)",
                arguments: [key.app, key.session, body, Date().timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        return event
    }

    /// The events of `key` not acknowledged yet, oldest first.
    func pending(for key: SessionKey) throws(TransferError) -> [BackgroundEventRecord] {
        try read("read queued events") { db in
            try Row.fetchAll(
                db, sql: "SELECT sequence, body FROM event WHERE app = ? AND session = ? ORDER BY sequence",
                arguments: [key.app, key.session]
            ).compactMap { row in
                let body: String = row["body"]
                guard var event = try? JSONDecoder().decode(BackgroundEventRecord.self, from: Data(body.utf8)) else {
                    return nil
                }
                event.sequence = row["sequence"]
                return event
            }
        }
    }

    /// Forgets `key`'s events up to `sequence`: they were handled.
    func acknowledge(_ key: SessionKey, upTo sequence: Int64) throws(TransferError) {
        try write("acknowledge events") { db in
            try db.execute(
                sql: "DELETE FROM event WHERE app = ? AND session = ? AND sequence <= ?",
                arguments: [key.app, key.session, sequence])
        }
    }

    /// Deletes events older than `age` (the retention limit for apps that never come back).
    func expire(olderThan age: TimeInterval) throws(TransferError) {
        try write("expire old events") { db in
            try db.execute(
                sql: "DELETE FROM event WHERE createdAt < ?", arguments: [Date().timeIntervalSince1970 - age])
        }
    }

    /// How many events wait, over all sessions.
    func queuedEventCount() throws(TransferError) -> Int {
        try read("count events") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0 }
    }

    // MARK: Relaunch

    /// Registers (or, with no arguments, removes) `key`'s relaunch command.
    func setRelaunch(_ command: RelaunchCommand, for key: SessionKey) throws(TransferError) {
        let body = try Self.json(command, "relaunch command")
        try write("register a relaunch command") { db in
            if command.arguments.isEmpty {
                try db.execute(
                    sql: "DELETE FROM relaunch WHERE app = ? AND session = ?", arguments: [key.app, key.session])
            } else {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO relaunch (app, session, command) VALUES (?, ?, ?)",
                    arguments: [key.app, key.session, body])
            }
        }
    }

    /// `key`'s relaunch command, if one is registered.
    func relaunch(for key: SessionKey) throws(TransferError) -> RelaunchCommand? {
        try read("read a relaunch command") { db in
            guard
                let body = try String.fetchOne(
                    db, sql: "SELECT command FROM relaunch WHERE app = ? AND session = ?",
                    arguments: [key.app, key.session])
            else { return nil }
            return try JSONDecoder().decode(RelaunchCommand.self, from: Data(body.utf8))
        }
    }
}
