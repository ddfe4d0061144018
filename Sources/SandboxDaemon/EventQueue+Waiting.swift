import GRDB
import Logging
import SandboxTransfer

/// The tasks a session keeps in its queue's rows only (issue 31): recorded `waiting` with no
/// download task, taken into memory in identifier order as places free up (``SessionHost``).
extension EventQueue {
    /// The condition of a row waiting in the queue only.
    private static let waitingRow = "underlying IS NULL AND state = '\(DownloadTaskState.waiting.rawValue)'"

    /// Up to `limit` of `key`'s waiting tasks after task `after`, in order; `rows` counts the rows
    /// read (a row this version cannot read is left out, reported to `logger`) and `last` is the
    /// last one's identifier (`after` when none).
    static func waitingTasks(
        _ db: Database, _ key: SessionKey, after: Int, limit: Int, logger: Logger
    ) throws -> (tasks: [StoredTask], rows: Int, last: Int) {
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT * FROM task WHERE app = ? AND session = ? AND id > ? AND \(waitingRow) ORDER BY id LIMIT ?",
            arguments: [key.app, key.session, after, limit])
        var page: (tasks: [StoredTask], rows: Int, last: Int) = ([], 0, after)
        while let row = try rows.next() {
            page.rows += 1
            page.last = row["id"]
            if let stored = storedTask(row, logger: logger) { page.tasks.append(stored) }
        }
        return page
    }

    /// `key`'s unfinished tasks that had a download task (they resume from their checkpoints),
    /// and how many wait in the rows only.
    func unfinishedTasks(of key: SessionKey) throws(SandboxError) -> (started: [StoredTask], waiting: Int) {
        try read("read unfinished tasks") { db in
            let started = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM task WHERE app = ? AND session = ? AND underlying IS NOT NULL AND state != ?
                    ORDER BY id
                    """,
                arguments: [key.app, key.session, DownloadTaskState.completed.rawValue]
            ).compactMap { row in Self.storedTask(row, logger: logger) }
            let waiting =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM task WHERE app = ? AND session = ? AND \(Self.waitingRow)",
                    arguments: [key.app, key.session]) ?? 0
            return (started, waiting)
        }
    }

    /// Marks task `id` of `key` cancelled if it waits in the rows only; whether it did.
    static func cancelWaiting(_ db: Database, _ key: SessionKey, _ id: Int) throws -> Bool {
        try db.execute(
            sql: """
                UPDATE task SET state = ?, errorCode = ? WHERE app = ? AND session = ? AND id = ? AND \(waitingRow)
                """,
            arguments: [
                DownloadTaskState.completed.rawValue, SandboxError.Code.cancelled.description, key.app, key.session, id,
            ])
        return db.changesCount > 0
    }
}
