import GRDB
import Logging
import Sandbox
import SandboxTransfer

/// A `list` request, checked (issue 31): the tasks of the hello's app (of its session when it
/// names one), a page after ``cursor``, in the queue's order — session, then task identifier.
/// A page holds at most ``TaskListPage/maximumTasks`` tasks and about
/// ``TaskListPage/maximumBytes``, so that no answer nears the protocol's frame limit and the daemon
/// reads one page of rows at a time, however many tasks it keeps.
struct TaskListing: Sendable {
    let app: String
    let session: String?
    let cursor: TaskCursor?
    /// The most tasks of the page; `nil` for a request that asks for the whole list at once (a
    /// client from before the paging), which is answered only when it fits in one page.
    let limit: Int?

    /// The listing `message` asks for, on a connection that said `hello`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the hello names no app, the
    ///   limit is under 1, or the cursor names a negative task, a session that is not one plain
    ///   name, or another session than the one the hello names.
    init(_ message: ClientMessage, hello: ClientMessage.Hello) throws(SandboxError) {
        guard let app = hello.app else {
            throw SandboxError(.invalidArgument, "Listing tasks needs a hello that names an app.")
        }
        if let limit = message.limit, limit < 1 {
            throw SandboxError(
                .invalidArgument, "A page of tasks holds at least one task; the limit \(limit) asks for none.")
        }
        if let cursor = message.cursor {
            guard cursor.taskID >= 0 else {
                throw SandboxError(
                    .invalidArgument,
                    "A task cursor names a task identifier of 0 or more (the last task listed), not \(cursor.taskID).")
            }
            try SessionHost.validate(session: cursor.session)
            if let session = hello.session, cursor.session != session {
                throw SandboxError(
                    .invalidArgument,
                    "This task cursor continues a listing of the session '\(cursor.session)'; this connection lists the session '\(session)'."
                )
            }
        }
        self.app = app
        session = hello.session
        cursor = message.cursor
        limit = message.limit.map { min($0, TaskListPage.maximumTasks) }
    }

    /// One page of stored tasks, and where the next starts (`nil`: this is the last).
    struct Page: Sendable {
        var tasks: [EventQueue.StoredTask]
        var next: TaskCursor?
    }

    /// Reads the page from the queue: one row past it at most, to know whether another follows.
    /// A row this version cannot read is left out (reported to `logger`) and the cursor still
    /// moves past it.
    func page(_ db: Database, logger: Logger) throws -> Page {
        var sql = "SELECT * FROM task WHERE app = ?"
        var arguments: StatementArguments = [app]
        if let session {
            sql += " AND session = ?"
            arguments += [session]
        }
        if let cursor {
            sql += " AND (session > ? OR (session = ? AND id > ?))"
            arguments += [cursor.session, cursor.session, cursor.taskID]
        }
        let most = limit ?? TaskListPage.maximumTasks
        sql += " ORDER BY session, id LIMIT ?"
        arguments += [most + 1]
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        var page = Page(tasks: [], next: nil)
        var (read, bytes) = (0, 0)
        var last: TaskCursor?
        while let row = try rows.next() {
            if read == most { return Page(tasks: page.tasks, next: last) }
            let stored = EventQueue.storedTask(row, logger: logger)
            if let stored {
                let size = TaskListPage.estimatedSize(of: stored.info)
                if read > 0 && bytes + size > TaskListPage.maximumBytes { return Page(tasks: page.tasks, next: last) }
                bytes += size
                page.tasks.append(stored)
            }
            read += 1
            last = TaskCursor(session: row["session"], taskID: row["id"])
        }
        return page
    }

    /// The error for a request without a limit whose list does not fit in one page.
    static let needsPages = SandboxError(
        .invalidArgument,
        "The list of tasks is longer than one answer holds (\(TaskListPage.maximumTasks) tasks or \(TaskListPage.maximumBytes >> 10) KiB): ask for it a page at a time, with a cursor and a limit."
    )
}
