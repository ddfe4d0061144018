import GRDB
import SandboxCore

/// SQLite databases in a container are copied with SQLite's online backup API, never read as
/// plain files: a copy taken while the app writes is a consistent database, not a torn one (and the
/// `-wal`, `-shm` and `-journal` files beside it are not needed).
enum DatabaseCopy {
    static let header = Array("SQLite format 3\u{0}".utf8)
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Whether `path` is the `-wal`, `-shm` or `-journal` file of one of `databases`.
    static func isCompanion(_ path: ContainerPath, ofAnyOf databases: Set<ContainerPath>) -> Bool {
        guard !databases.isEmpty, let last = path.lastName?.string else { return false }
        for suffix in companionSuffixes where last.hasSuffix(suffix) {
            let base = String(last.dropLast(suffix.count))
            if !base.isEmpty && databases.contains(path.parent.appendingTrusted(base)) { return true }
        }
        return false
    }

    /// Whether the regular file at `path` starts with SQLite's header.
    static func isDatabase(_ path: ContainerPath, in root: ConfinedRoot, size: Int64) throws(SandboxError) -> Bool {
        // A database is whole pages (a power of two from 512 to 65,536 bytes): anything else is not
        // opened, which spares most files a second open.
        guard size >= 512, size % 512 == 0 else { return false }
        let file = try root.openFile(forReadingAt: path)
        defer { _ = try? file.close() }  // read-only: nothing to lose on a failed close
        return try file.read(upToCount: header.count, atOffset: 0).bytes == header
    }

    /// Copies the database at host path `source` to host path `destination` (a new file).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when SQLite cannot read it.
    static func copy(from source: String, to destination: String, display: String) throws(SandboxError) {
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(30)
            let input = try DatabaseQueue(path: source, configuration: configuration)
            let output = try DatabaseQueue(path: destination)
            try input.backup(to: output)
            try input.close()
            try output.close()
        } catch {
            throw SandboxError(
                .corrupt,
                "SQLite could not copy the database '\(display)' with its online backup API (\(error)). Check that it is a database; an app holding it locked for longer than 30 s also fails the copy.",
                path: display)
        }
    }
}
