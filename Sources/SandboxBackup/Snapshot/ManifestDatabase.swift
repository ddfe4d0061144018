import Crypto
import Foundation
import GRDB
import SandboxCore

/// An iOS-shaped `Manifest.db` (as Finder and iTunes write): `Files(fileID, domain, relativePath,
/// flags, file)` with `fileID = SHA1(domain + "-" + relativePath)`, `flags` 1 file, 2 directory,
/// 4 symlink, and `file` our own JSON of the item (not an `MBFile` keyed archive: that class cannot
/// be archived faithfully here), plus `Properties(key, value)`.
enum ManifestDatabase {
    static func domain(for app: String) -> String { "AppDomain-" + app }

    static func fileID(domain: String, relativePath: String) -> String {
        Hex.string(Insecure.SHA1.hash(data: Data((domain + "-" + relativePath).utf8)))
    }

    static func flags(_ kind: TreeNode.Kind) -> Int {
        switch kind {
        case .file: 1
        case .directory: 2
        case .symlink: 4
        }
    }

    /// Apple's tables and indexes (an iOS backup's `Manifest.db` has the same).
    static let schema = """
        CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB);
        CREATE INDEX FilesDomainIdx ON Files(domain);
        CREATE INDEX FilesRelativePathIdx ON Files(relativePath);
        CREATE INDEX FilesFlagsIdx ON Files(flags);
        CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB);
        """

    /// Writes a new database at host path `path` whose `Files` rows are the nodes `rows` hands to
    /// the closure it is given, each with its JSON (``TreeJSON/append(_:)``) as the `file` column.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/io`` when SQLite cannot write the database; what
    ///   `rows` throws, as it is.
    static func write(
        app: String, snapshotTime: Date, to path: String,
        rows: (_ insert: (_ node: TreeNode, _ json: Data) throws -> Void) throws -> Void
    ) throws(SandboxError) {
        let domain = domain(for: app)
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: schema)
                let insert = try db.makeStatement(
                    sql:
                        "INSERT OR REPLACE INTO Files (fileID, domain, relativePath, flags, file) VALUES (?, ?, ?, ?, ?)"
                )
                try rows { node, json in
                    let relative = node.displayPath
                    try insert.execute(arguments: [
                        fileID(domain: domain, relativePath: relative), domain, relative, flags(node.kind), json,
                    ])
                }
                try db.execute(
                    sql: "INSERT INTO Properties (key, value) VALUES ('Version', '1'), ('Date', ?), ('Domain', ?)",
                    arguments: [UTCTimestamp.iso8601(snapshotTime), domain])
            }
            try queue.close()
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.io, "Writing the manifest of '\(app)' failed: \(error).", path: path)
        }
    }
}
