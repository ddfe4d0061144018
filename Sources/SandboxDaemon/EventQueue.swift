import Foundation
import GRDB
import Logging
import SandboxTransfer

/// The daemon's durable state: its background tasks and the events apps have not handled yet.
///
/// SQLite (through GRDB) rather than the session's checkpoint files: delivering each event exactly
/// once, in order, needs an append that survives a kill and an acknowledgement that removes exactly
/// the events the app handled — two statements that must commit together or not at all. A
/// transaction gives that; a checkpoint file rewritten per event would need its own journal. The
/// transfers themselves still resume from the session's checkpoints.
///
/// The daemon writes through ``writes`` (group commit: one transaction for everything asked for
/// while the previous one ran); the synchronous methods read, or write one transaction each (tests,
/// and what happens once at start).
final class EventQueue: Sendable {
    private let database: DatabaseQueue
    /// The daemon's writes, batched.
    let writes: GroupCommit
    /// Where a row this version cannot read is reported: the daemon's log.
    let logger: Logger

    /// Opens (creating if needed) the queue at `path`; rows it cannot read are reported to `logger`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when the file is not a usable database.
    init(path: String, logger: Logger = .discarding) throws(SandboxError) {
        self.logger = logger
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
            migrator.registerMigration(BackgroundQueueSchema.tasksAndEvents) { db in
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
            migrator.registerMigration(BackgroundQueueSchema.relaunch) { db in
                try db.execute(
                    sql: """
                        CREATE TABLE relaunch (
                            app TEXT NOT NULL, session TEXT NOT NULL, command TEXT NOT NULL,
                            PRIMARY KEY (app, session));
                        """)
            }
            try migrator.migrate(database)
            writes = GroupCommit(database: database)
        } catch {
            throw SandboxError(
                .corrupt,
                "sandboxd's queue '\(path)' cannot be opened: \(error). Stop sandboxd and move the file away to start afresh (its queued events are lost).",
                path: path, underlying: .wrapping(error))
        }
    }

    private func write<T>(_ what: String, _ body: (Database) throws -> T) throws(SandboxError) -> T {
        do {
            return try database.write(body)
        } catch {
            throw SandboxError(
                .corrupt, "sandboxd could not \(what) in its queue: \(error).", underlying: .wrapping(error))
        }
    }

    /// One encoder for every row (its options never change; encoding with it is thread-safe).
    private static let encoder = JSONEncoder()
    /// One decoder for every row, as the encoder.
    private static let decoder = JSONDecoder()

    /// The record a row's JSON `body` holds, or `nil` — logged with `row` named — when this version
    /// cannot read it (a newer daemon's row, or a damaged one): such a row is left alone, not
    /// deleted, and not allowed to stop the rows after it from being read.
    static func decodeRow<T: Decodable>(
        _ type: T.Type, _ body: String, row: @autoclosure () -> String, logger: Logger
    ) -> T? {
        do {
            return try decoder.decode(type, from: Data(body.utf8))
        } catch {
            logger.warning("sandboxd leaves \(row()) of its queue alone: this version cannot read it (\(error)).")
            return nil
        }
    }

    /// `value` as the JSON text stored in a row. Encoding these plain records does not fail in
    /// practice; if it ever did, nothing is stored (an empty body would lose the record silently).
    static func json(_ value: some Encodable, _ what: String) throws(SandboxError) -> String {
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw SandboxError(
                .corrupt, "sandboxd could not encode a \(what) for its queue: \(error).", underlying: .wrapping(error))
        }
    }

    func read<T>(_ what: String, _ body: (Database) throws -> T) throws(SandboxError) -> T {
        do {
            return try database.read(body)
        } catch {
            throw SandboxError(
                .corrupt, "sandboxd could not \(what) in its queue: \(error).", underlying: .wrapping(error))
        }
    }

    // MARK: Tasks

    /// Records a new task of `key` and returns its identifier (one more than the session's largest).
    func addTask(_ request: BackgroundRequest, to key: SessionKey) throws(SandboxError) -> Int {
        let body = try Self.json(request, "task")
        return try write("record a task") { db in
            let id = try Self.largestTaskID(db, of: key) + 1
            try Self.insertTask(db, key, id, url: request.url, body: body, underlying: nil)
            return id
        }
    }

    /// The largest task identifier `key` has used, 0 for none: the session numbers new tasks from it.
    func largestTaskID(of key: SessionKey) throws(SandboxError) -> Int {
        try read("number a task") { db in try Self.largestTaskID(db, of: key) }
    }

    private static func largestTaskID(_ db: Database, of key: SessionKey) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT MAX(id) FROM task WHERE app = ? AND session = ?", arguments: [key.app, key.session]) ?? 0
    }

    /// Inserts task `id` of `key`: `waiting`, or `running` as download task `underlying`.
    static func insertTask(
        _ db: Database, _ key: SessionKey, _ id: Int, url: String, body: String, underlying: Int?
    ) throws {
        try db.execute(
            sql: "INSERT INTO task (app, session, id, url, request, state, underlying) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                key.app, key.session, id, url, body,
                underlying == nil ? DownloadTaskState.waiting.rawValue : DownloadTaskState.running.rawValue,
                underlying,
            ])
    }

    /// A task's stored row.
    struct StoredTask: Sendable {
        var key: SessionKey
        var info: DownloadTaskSummary.Wire
        var request: BackgroundRequest
        var underlying: Int?
    }

    /// What changes in a task's row.
    enum TaskUpdate: Sendable, Equatable {
        /// It runs (again) as download task `underlying`.
        case running(underlying: Int)
        /// Its file is at `path` in the container.
        case finished(path: String)
        /// It is over; `errorCode` is `nil` on success.
        case completed(errorCode: String?, bytesWritten: Int64, expectedLength: Int64?)
    }

    /// Updates a task's row (nothing when it has none).
    func updateTask(_ key: SessionKey, _ id: Int, _ update: TaskUpdate) throws(SandboxError) {
        try write("update task \(id)") { db in try Self.updateTask(db, key, id, update) }
    }

    /// Updates a task's row with one statement (nothing when it has none): the row is not read,
    /// so its request is not decoded.
    static func updateTask(_ db: Database, _ key: SessionKey, _ id: Int, _ update: TaskUpdate) throws {
        let (assignments, values): (String, StatementArguments) =
            switch update {
            case .running(let underlying):
                ("state = ?, underlying = ?", [DownloadTaskState.running.rawValue, underlying])
            case .finished(let path): ("path = ?", [path])
            case .completed(let errorCode, let bytesWritten, let expectedLength):
                (
                    "state = ?, errorCode = ?, bytesWritten = ?, expectedLength = ?",
                    [DownloadTaskState.completed.rawValue, errorCode, bytesWritten, expectedLength]
                )
            }
        try db.execute(
            sql: "UPDATE task SET \(assignments) WHERE app = ? AND session = ? AND id = ?",
            arguments: values + [key.app, key.session, id])
    }

    /// The tasks of `app` (of its session `session` when given), or of every app.
    func tasks(app: String? = nil, session: String? = nil) throws(SandboxError) -> [StoredTask] {
        try read("list tasks") { db in try Self.fetchTasks(db, app, session, logger: logger) }
    }

    /// The tasks of `app` (of its session `session` when given), or of every app.
    static func fetchTasks(_ db: Database, _ app: String?, _ session: String?, logger: Logger) throws -> [StoredTask] {
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
        return try Row.fetchAll(db, sql: sql + " ORDER BY app, session, id", arguments: arguments).compactMap { row in
            storedTask(row, logger: logger)
        }
    }

    /// The task in `row` of the `task` table; `nil` (reported to `logger`) for one this version
    /// cannot read.
    static func storedTask(_ row: Row, logger: Logger) -> StoredTask? {
        let taskID: Int64 = row["id"]
        let stateName: String = row["state"]
        guard
            let request = decodeRow(
                BackgroundRequest.self, row["request"], row: "the request of task \(taskID)", logger: logger)
        else { return nil }
        guard let state = DownloadTaskState(rawValue: stateName) else {
            logger.warning("sandboxd leaves task \(taskID) of its queue alone: its state '\(stateName)' is unknown.")
            return nil
        }
        let info = DownloadTaskSummary.Wire(
            session: row["session"], taskID: row["id"], url: row["url"], state: state,
            bytesWritten: row["bytesWritten"], expectedLength: row["expectedLength"], path: row["path"],
            errorCode: row["errorCode"])
        return StoredTask(
            key: SessionKey(app: row["app"], session: row["session"]), info: info, request: request,
            underlying: row["underlying"])
    }

    // MARK: Events

    /// Appends `event` to `key`'s queue; returns it with its sequence number.
    func append(_ event: BackgroundEventRecord, for key: SessionKey) throws(SandboxError) -> BackgroundEventRecord {
        let body = try Self.json(event, "event")
        return try write("queue an event") { db in try Self.append(db, event, body: body, for: key) }
    }

    /// Inserts `event` (encoded as `body`) into `key`'s queue; returns it with its sequence number.
    static func append(
        _ db: Database, _ event: BackgroundEventRecord, body: String, for key: SessionKey
    ) throws -> BackgroundEventRecord {
        try db.execute(
            sql: "INSERT INTO event (app, session, body, createdAt) VALUES (?, ?, ?, ?)",
            arguments: [key.app, key.session, body, Date().timeIntervalSince1970])
        var event = event
        event.sequence = db.lastInsertedRowID
        return event
    }

    /// The events of `key` not acknowledged yet, oldest first.
    func pending(for key: SessionKey) throws(SandboxError) -> [BackgroundEventRecord] {
        try read("read queued events") { db in try Self.pending(db, for: key, logger: logger) }
    }

    /// The events of `key` not acknowledged yet, oldest first.
    static func pending(_ db: Database, for key: SessionKey, logger: Logger) throws -> [BackgroundEventRecord] {
        try page(db, for: key, after: 0, limit: -1, logger: logger).events  // SQLite: a negative limit is none
    }

    /// Up to `limit` queued rows of `key` after sequence `sequence`, oldest first: their events
    /// (a row this version cannot read is left out, logged), the last row's sequence and how many
    /// rows were read — fewer than `limit` when no more follow. One index range scan
    /// (`event_session`), so a page costs the same however many events wait.
    static func page(
        _ db: Database, for key: SessionKey, after sequence: Int64, limit: Int, logger: Logger
    ) throws -> (events: [BackgroundEventRecord], last: Int64, rows: Int) {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT sequence, body FROM event WHERE app = ? AND session = ? AND sequence > ?
                ORDER BY sequence LIMIT ?
                """,
            arguments: [key.app, key.session, sequence, limit])
        var last = sequence
        let events = rows.compactMap { row -> BackgroundEventRecord? in
            let sequence: Int64 = row["sequence"]
            last = sequence
            guard
                var event = decodeRow(BackgroundEventRecord.self, row["body"], row: "event \(sequence)", logger: logger)
            else {
                return nil
            }
            event.sequence = sequence
            return event
        }
        return (events, last, rows.count)
    }

    /// Whether `key` has events not acknowledged yet (without reading them).
    static func hasPending(_ db: Database, for key: SessionKey) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM event WHERE app = ? AND session = ?)",
            arguments: [key.app, key.session]) ?? false
    }

    /// Forgets `key`'s events up to `sequence`: they were handled.
    func acknowledge(_ key: SessionKey, upTo sequence: Int64) throws(SandboxError) {
        try write("acknowledge events") { db in try Self.acknowledge(db, key, upTo: sequence) }
    }

    /// Deletes `key`'s events up to `sequence` (a second acknowledgement deletes nothing more).
    static func acknowledge(_ db: Database, _ key: SessionKey, upTo sequence: Int64) throws {
        try db.execute(
            sql: "DELETE FROM event WHERE app = ? AND session = ? AND sequence <= ?",
            arguments: [key.app, key.session, sequence])
    }

    /// Deletes events older than `age` (the retention limit for apps that never come back).
    func expire(olderThan age: TimeInterval) throws(SandboxError) {
        try write("expire old events") { db in try Self.expire(db, olderThan: age) }
    }

    /// Deletes events older than `age`.
    static func expire(_ db: Database, olderThan age: TimeInterval) throws {
        try db.execute(sql: "DELETE FROM event WHERE createdAt < ?", arguments: [Date().timeIntervalSince1970 - age])
    }

    /// The apps that have events waiting.
    func appsWithEvents() throws(SandboxError) -> [String] {
        try read("list the apps with events") { db in try String.fetchAll(db, sql: "SELECT DISTINCT app FROM event") }
    }

    /// Deletes everything of `app`: its tasks, events and relaunch commands (it was uninstalled).
    static func forget(_ db: Database, app: String) throws {
        for table in ["task", "event", "relaunch"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE app = ?", arguments: [app])
        }
    }

    /// How many events wait, over all sessions.
    func queuedEventCount() throws(SandboxError) -> Int {
        try read("count events") { db in try Self.queuedEventCount(db) }
    }

    /// How many events wait, over all sessions.
    static func queuedEventCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0
    }

    // MARK: Relaunch

    /// Registers (or, with no arguments, removes) `key`'s relaunch command.
    func setRelaunch(_ command: RelaunchCommand, for key: SessionKey) throws(SandboxError) {
        let body = try Self.json(command, "relaunch command")
        try write("register a relaunch command") { db in try Self.setRelaunch(db, command, body: body, for: key) }
    }

    /// Registers `command` (encoded as `body`) for `key`, or removes it when it has no arguments.
    static func setRelaunch(_ db: Database, _ command: RelaunchCommand, body: String, for key: SessionKey) throws {
        if command.arguments.isEmpty {
            try db.execute(
                sql: "DELETE FROM relaunch WHERE app = ? AND session = ?", arguments: [key.app, key.session])
        } else {
            try db.execute(
                sql: "INSERT OR REPLACE INTO relaunch (app, session, command) VALUES (?, ?, ?)",
                arguments: [key.app, key.session, body])
        }
    }

    /// `key`'s relaunch command, if one is registered.
    func relaunch(for key: SessionKey) throws(SandboxError) -> RelaunchCommand? {
        try read("read a relaunch command") { db in try Self.relaunch(db, for: key) }
    }

    /// `key`'s relaunch command, if one is registered.
    static func relaunch(_ db: Database, for key: SessionKey) throws -> RelaunchCommand? {
        guard
            let body = try String.fetchOne(
                db, sql: "SELECT command FROM relaunch WHERE app = ? AND session = ?",
                arguments: [key.app, key.session])
        else { return nil }
        return try decoder.decode(RelaunchCommand.self, from: Data(body.utf8))
    }
}
