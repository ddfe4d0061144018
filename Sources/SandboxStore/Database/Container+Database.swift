import Foundation
import GRDB
import Sandbox

extension Container {
    /// Opens (creating if needed) the SQLite database `name` in `Library/Application Support`, in
    /// WAL mode, as a GRDB `DatabasePool` (concurrent reads, serialized writes).
    ///
    /// The name is one file name: no `/`, not `.` or `..`, no NUL, not hidden, at most 240 bytes.
    /// `Library/Application Support` is opened through the container's confined root as one
    /// directory descriptor (a real directory, not a symlink); the database's files (`name`,
    /// `name-wal`, `name-shm`, `name-journal`) are checked beneath it — absent or regular files —
    /// and SQLite opens every one of them beneath that same descriptor without following a
    /// symlink, never by host path. An app that renames a symlink over its database, or over the
    /// folder, while it is opened gets an error, never another app's database. The descriptor
    /// stays open as long as the pool (and any copy of its configuration) does.
    ///
    /// Each connection checks, as it opens, that SQLite opened it this way (the `sandbox-beneath`
    /// VFS, selected by a URI file name), after any preparation functions `configuration` already
    /// has. `DatabasePool.path` is that URI (`file:/proc/self/fd/…`), not a host path.
    ///
    /// - Parameters:
    ///   - name: the database's file name in `Library/Application Support`, e.g. `app.sqlite`.
    ///   - configuration: GRDB's configuration; the journal mode is always WAL.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidName`` for a name that is not one
    ///   plain file name; ``/SandboxCore/SandboxError/Code/escapesContainer`` (the core's code)
    ///   when `Library`, `Library/Application Support` or one of the database's files is a symlink
    ///   or not of its kind; the core's codes when the folder cannot be created or opened;
    ///   ``SandboxCore/SandboxError/Code/database`` when SQLite refuses (the file is not a database, a symlink
    ///   was swapped in during the open) or did not open through the descriptor.
    public func database(
        named name: String, configuration: Configuration = Configuration()
    ) throws(SandboxError) -> DatabasePool {
        let folder =
            ContainerDirectory.applicationSupport.path ?? ContainerPath(constant: "Library/Application Support")
        let path = try Self.databasePath(named: name, in: folder)
        let directory = try DatabaseDirectory(opening: folder, in: root)
        try directory.checkFiles(of: name)
        var configuration = configuration
        // Holds the descriptor for as long as the pool, whose connections all run it.
        configuration.prepareDatabase { db in try directory.verify(db, file: path) }
        do {
            let pool = try DatabasePool(path: directory.uri(of: name), configuration: configuration)
            let mode = try pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            guard mode?.lowercased() == "wal" else {
                throw SandboxError(
                    .database,
                    "The database '\(path)' did not switch to WAL mode (it is in '\(mode ?? "unknown")' mode).",
                    path: path.description)
            }
            return pool
        } catch let error as SandboxError {
            throw error
        } catch {
            try directory.checkFiles(of: name)  // a symlink swapped in during the open: say so
            throw SandboxError(
                .database,
                "SQLite could not open '\(path)' as a database. If the file is damaged, move it aside and open again to start empty.",
                path: path.description,
                underlying: .detail(String(describing: error))
            )
        }
    }

    /// `Library/Application Support/<name>` for a valid database name.
    static func databasePath(named name: String, in directory: ContainerPath) throws(SandboxError) -> ContainerPath {
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.utf8.contains(0), name.utf8.count <= 240
        else {
            throw SandboxError(
                .invalidName,
                "'\(name.replacingOccurrences(of: "\0", with: "\\0"))' is not a database name: give one plain file name such as 'notes.sqlite' (no '/', not hidden or '..', at most 240 bytes).",
                path: name
            )
        }
        return try directory.appending(name)
    }
}
