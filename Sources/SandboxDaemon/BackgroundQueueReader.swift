import Foundation
import GRDB
import Glibc
import Sandbox
import SandboxTransfer

/// A background task as `sandboxd`'s queue last recorded it, read while the daemon is not running.
package struct QueuedBackgroundTask: Sendable, Hashable {
    /// The task as the daemon's listing would show it, from its row. A task the daemon was running
    /// keeps the state it had (`running`, `waiting`) and 0 bytes: the daemon records the bytes
    /// when a task completes, the transfer's partial file is measured from its session's checkpoint.
    package var info: DownloadTaskSummary.Wire
    /// The download task that ran it in its download session
    /// (``BackgroundQueueSchema/downloadSession(of:)``), when it was running.
    package var underlying: Int?
}

/// Reads `sandboxd`'s queue without the daemon, for listing its tasks while it is not running.
///
/// The database is opened read-only: never created, never migrated, no lock of the daemon taken
/// (SQLite takes its shared read lock, and may make the empty `-wal` and `-shm` companions a
/// read-only connection needs, as a reader does). Only the rows of the app asked for are read.
package enum BackgroundQueueReader {
    /// The tasks of `app` in the queue at `paths`, by session then task; `nil` when there is no
    /// queue (`sandboxd` never ran for this home).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when the queue is not a file, cannot be read, or is
    ///   not `sandboxd`'s; the core's `unsupported` when a newer `sandboxd` migrated it.
    package static func tasks(
        of app: AppIdentifier, paths: DaemonPaths
    ) throws(SandboxError) -> [QueuedBackgroundTask]? {
        let path = paths.queue
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw SandboxError(
                .corrupt,
                "sandboxd's queue '\(path)' cannot be read (errno \(code)); start sandboxd to list its tasks (sandbox downloads APP --wait).",
                path: path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SandboxError(
                .corrupt, "sandboxd's queue '\(path)' is not a file; stop sandboxd and move it away to start afresh.",
                path: path)
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(2)
            let database = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? database.close() }  // read-only: nothing to lose when closing fails
            return try database.read { db throws(SandboxError) in
                try checkSchema(db, path: path)
                return try fetchTasks(db, of: app, path: path)
            }
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .corrupt,
                "sandboxd's queue '\(path)' cannot be read: \(error). Start sandboxd to list its tasks (sandbox downloads APP --wait); if it cannot read it either, stop it and move the file away to start afresh.",
                path: path, underlying: .wrapping(error))
        }
    }

    /// Checks that the queue was migrated by this version's schema (or an older one).
    private static func checkSchema(_ db: Database, path: String) throws(SandboxError) {
        let applied: [String]
        do {
            guard try db.tableExists(BackgroundQueueSchema.migrationsTable), try db.tableExists("task") else {
                throw SandboxError(.corrupt, "'\(path)' is not sandboxd's queue: it has no task table.", path: path)
            }
            applied = try String.fetchAll(db, sql: "SELECT identifier FROM \(BackgroundQueueSchema.migrationsTable)")
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .corrupt, "sandboxd's queue '\(path)' cannot be read: \(error).", path: path,
                underlying: .wrapping(error))
        }
        let unknown = applied.filter { !BackgroundQueueSchema.migrations.contains($0) }
        guard unknown.isEmpty else {
            throw SandboxError(
                SandboxError.Code.unsupported,
                "sandboxd's queue '\(path)' was migrated by a newer sandboxd (\(unknown.joined(separator: ", "))); this sandbox cannot read it. Use the sandbox of that version, or start sandboxd to list its tasks.",
                path: path)
        }
    }

    private static func fetchTasks(
        _ db: Database, of app: AppIdentifier, path: String
    ) throws(SandboxError) -> [QueuedBackgroundTask] {
        do {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT session, id, url, state, underlying, bytesWritten, expectedLength, path, errorCode
                    FROM task WHERE app = ? ORDER BY session, id
                    """,
                arguments: [app.rawValue])
            return try rows.compactMap { row in
                // A state this version does not know is a newer daemon's: the row is left out, as
                // the daemon leaves it alone.
                guard let state = DownloadTaskState(rawValue: try row.decode(String.self, forColumn: "state")) else {
                    return nil
                }
                let info = DownloadTaskSummary.Wire(
                    session: try row.decode(forColumn: "session"), taskID: try row.decode(forColumn: "id"),
                    url: try row.decode(forColumn: "url"), state: state,
                    bytesWritten: try row.decode(forColumn: "bytesWritten"),
                    expectedLength: try row.decode(forColumn: "expectedLength"),
                    path: try row.decode(forColumn: "path"),
                    errorCode: try row.decode(forColumn: "errorCode"))
                return QueuedBackgroundTask(info: info, underlying: try row.decode(forColumn: "underlying"))
            }
        } catch {
            throw SandboxError(
                .corrupt, "The tasks in sandboxd's queue '\(path)' cannot be read: \(error).", path: path,
                underlying: .wrapping(error))
        }
    }
}
