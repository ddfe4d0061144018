import SandboxTransfer

/// The names in `sandboxd`'s durable state that a reader without the daemon relies on: the
/// migrations of its queue (an SQLite database the daemon alone creates and migrates) and the
/// download session that runs a background session's tasks in the app's container.
package enum BackgroundQueueSchema {
    /// The first schema: the `task` and `event` tables.
    package static let tasksAndEvents = "v1"
    /// The `relaunch` table.
    package static let relaunch = "v2 relaunch"
    /// Every migration this version knows, oldest first: a queue that records another one was
    /// migrated by a newer `sandboxd`.
    package static let migrations = [tasksAndEvents, relaunch]
    /// The table in which GRDB records the migrations applied to a database.
    static let migrationsTable = "grdb_migrations"

    /// The prefix of the identifier of the ``DownloadSession`` that runs a background session's
    /// tasks (``DownloadSession/backgroundIdentifierPrefix``, which listings tell them apart by).
    package static let downloadSessionPrefix = DownloadSession.backgroundIdentifierPrefix

    /// The identifier of the download session that runs background session `session`.
    package static func downloadSession(of session: String) -> String {
        DownloadSession.identifier(ofBackground: session)
    }
}
