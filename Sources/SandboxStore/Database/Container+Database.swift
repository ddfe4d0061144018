import Foundation
import GRDB
import Sandbox

extension Container {
    /// Opens (creating if needed) the SQLite database `name` in `Library/Application Support`, in
    /// WAL mode, as a GRDB `DatabasePool` (concurrent reads, serialized writes).
    ///
    /// The name is one file name: no `/`, not `.` or `..`, no NUL, not hidden, at most 255 bytes.
    /// `Library/Application Support` and the database's files (`name`, `name-wal`, `name-shm`)
    /// are checked through the container's confined root — real directories and regular files, not
    /// symlinks — before SQLite opens them by path. (SQLite cannot open beneath a directory
    /// descriptor, so an app that swaps in a symlink between the check and the open is not stopped;
    /// everything the library itself writes stays confined.)
    ///
    /// - Parameters:
    ///   - name: the database's file name in `Library/Application Support`, e.g. `app.sqlite`.
    ///   - configuration: GRDB's configuration; the journal mode is always WAL.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidName`` for a name that is not one
    ///   plain file name, ``/SandboxCore/SandboxError/Code/escapesContainer`` (the core's code) when a symlink is in
    ///   the way, ``SandboxCore/SandboxError/Code/database`` when SQLite refuses (e.g. the file is not a
    ///   database).
    public func database(
        named name: String, configuration: Configuration = Configuration()
    ) throws(SandboxError) -> DatabasePool {
        let directory =
            ContainerDirectory.applicationSupport.path ?? ContainerPath(constant: "Library/Application Support")
        let path = try Self.databasePath(named: name, in: directory)
        do {
            try root.createDirectory(at: directory, withIntermediateDirectories: true)
            for part in [ContainerPath(constant: "Library"), directory] {
                guard try root.attributes(at: part, followingSymlink: false)?.type == .directory else {
                    throw SandboxError(
                        .escapesContainer,
                        "'\(part)' is not a real directory (a symlink?); databases open only inside the container. Remove it and try again.",
                        path: part.description)
                }
            }
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let file = try directory.appending(name + suffix)
                if let type = try root.attributes(at: file, followingSymlink: false)?.type, type != .regular {
                    throw SandboxError(
                        .escapesContainer,
                        "'\(file)' is a \(type), not a regular file; a database's files must be plain files inside the container.",
                        path: file.description)
                }
            }
        }
        do {
            let pool = try DatabasePool(path: root.displayPath(of: path), configuration: configuration)
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
            throw SandboxError(
                .database,
                "SQLite could not open '\(path)' as a database. If the file is damaged, move it aside (`sandbox mv`) and open again to start empty.",
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
