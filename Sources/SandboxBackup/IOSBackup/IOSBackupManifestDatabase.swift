import Foundation
import GRDB
import SandboxCore
import SandboxStore

/// An iOS backup's `Manifest.db`: Apple's schema (``ManifestDatabase/schema``), one `Files` row a
/// item with its `MBFile` archive (``IOSBackupItem/archive()``).
enum IOSBackupManifestDatabase {
    /// Writes a new database at host path `path` listing `items`.
    static func write(_ items: [IOSBackupItem], to path: String) throws(SandboxError) {
        var archives: [Data] = []
        archives.reserveCapacity(items.count)
        for item in items { archives.append(Data(try item.archive())) }
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: ManifestDatabase.schema)
                let insert = try db.makeStatement(
                    sql: "INSERT INTO Files (fileID, domain, relativePath, flags, file) VALUES (?, ?, ?, ?, ?)")
                for (item, archive) in zip(items, archives) {
                    try insert.execute(arguments: [
                        item.fileID, item.domain, item.relativePath, item.kind.rawValue, archive,
                    ])
                }
            }
            try queue.close()
        } catch {
            throw SandboxError(.io, "Writing the backup's Manifest.db failed: \(error).", path: path)
        }
    }

    /// The distinct domains of the database at host path `path` that begin with `prefix`, at most
    /// `maximum` of them.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidIOSBackup`` naming `shown` when it is not
    ///   SQLite or has no `Files` table; `too-large` past `maximum`.
    static func domains(
        in path: String, prefix: String, maximum: Int, shown: String
    ) throws(SandboxError) -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        var found: [String] = []
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            found = try queue.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT DISTINCT CAST(domain AS TEXT) FROM Files WHERE substr(CAST(domain AS TEXT), 1, ?) = ? ORDER BY 1 LIMIT ?",
                    arguments: [prefix.count, prefix, maximum + 1])
            }
            try queue.close()
        } catch {
            throw IOSBackupProblem.refusal(
                shown, "is not an iOS backup's manifest (a SQLite database with Apple's Files table): \(error)")
        }
        guard found.count <= maximum else {
            throw IOSBackupProblem.refusal(shown, "lists more than \(maximum) App Group domains", code: .tooLarge)
        }
        return found
    }

    /// A row of `Files` as it is stored, unchecked.
    struct Row {
        var fileID: String?
        var domain: String
        /// The path's bytes (SQLite text need not be UTF-8).
        var relativePath: [UInt8]
        var flags: Int64?
        var file: [UInt8]?
    }

    /// The rows of the domains `domains` in the database at host path `path` (a copy the caller
    /// owns), at most `maximumRows`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidIOSBackup`` naming `shown` when it is not
    ///   SQLite or has no `Files` table as Apple's; `too-large` past `maximumRows`.
    static func rows(
        in path: String, domains: [String], maximumRows: Int, shown: String
    ) throws(SandboxError) -> [Row] {
        var configuration = Configuration()
        configuration.readonly = true
        let marks = Array(repeating: "?", count: domains.count).joined(separator: ", ")
        var rows: [Row] = []
        var tooMany = false
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.read { db in
                // Every column cast to the type read: a hostile database's values of other types
                // must not stop the reader.
                let cursor = try GRDB.Row.fetchCursor(
                    db,
                    sql:
                        "SELECT CAST(fileID AS TEXT), CAST(domain AS TEXT), CAST(relativePath AS BLOB), CAST(flags AS INTEGER), CAST(file AS BLOB) FROM Files WHERE domain IN (\(marks)) ORDER BY relativePath",
                    arguments: StatementArguments(domains))
                while let row = try cursor.next() {
                    guard rows.count < maximumRows else {
                        tooMany = true
                        return
                    }
                    let path: Data? = row[2]
                    let file: Data? = row[4]
                    rows.append(
                        Row(
                            fileID: row[0], domain: row[1] ?? "", relativePath: path.map { Array($0) } ?? [],
                            flags: row[3], file: file.map { Array($0) }))
                }
            }
            try queue.close()
        } catch {
            throw IOSBackupProblem.refusal(
                shown, "is not an iOS backup's manifest (a SQLite database with Apple's Files table): \(error)")
        }
        if tooMany {
            throw IOSBackupProblem.refusal(
                shown, "lists more than \(maximumRows) items of the app's domains", code: .tooLarge)
        }
        return rows
    }
}
