import CSandboxSQLite
import CSandboxShims
import GRDB
import Glibc
import Sandbox
import SandboxCore
import SystemPackage

/// The folder of a container's databases, open as one directory descriptor for as long as a
/// database pool in it lives.
///
/// The folder is opened through the container's confined root, without following a symlink; the
/// database's files are checked beneath that descriptor (``checkFiles(of:)``), and SQLite opens
/// them beneath the same descriptor (``uri(of:)`` selects CSandboxSQLite's `sandbox-beneath` VFS,
/// which opens `/proc/self/fd/<descriptor>/<name>` with `openat(O_NOFOLLOW)`). The folder checked is
/// the folder used: no file is reached through a host path or a symlink, so an app that renames a
/// symlink over its database, or over the folder, after the check gets nothing of another's.
///
/// The pool keeps its configuration, whose preparation function holds this object
/// (``verify(_:file:)``): the descriptor — and so its number, which the URI names — stays open
/// until the last connection is gone, readers included (GRDB opens them later, on demand).
final class DatabaseDirectory: Sendable {
    /// The folder, relative to the container.
    let path: ContainerPath
    /// The `O_PATH | O_DIRECTORY` descriptor SQLite opens the files beneath.
    let descriptor: CInt

    /// Creates (if needed) and opens the folder at `path` beneath `root`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/escapesContainer`` when the
    ///   folder or its parent is not a real directory (a symlink), the core's codes when it cannot
    ///   be created or opened, ``SandboxCore/SandboxError/Code/database`` when the SQLite VFS cannot be set up.
    init(opening path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        let installed = csb_sqlite_install_beneath_vfs()
        guard installed == 0 else {
            throw SandboxError(
                .database,
                "This process's SQLite has no usable 'unix' VFS to open '\(path)' beneath its folder (SQLite error \(installed)); databases are not opened by host path.",
                path: path.description)
        }
        self.path = path
        descriptor = try { () throws(SandboxError) in
            try root.createDirectory(at: path, withIntermediateDirectories: true)
            var parts = [path]
            while let parent = parts.last?.parent, !parent.isRoot { parts.append(parent) }
            for part in parts.reversed() {
                guard try root.attributes(at: part, followingSymlink: false)?.type == .directory else {
                    throw Self.notADirectory(part)
                }
            }
            do throws(SandboxError) {
                return try root.openDirectory(path, flags: CSB_O_PATH, followFinalSymlink: false).release()
            } catch  where error.code == .symlinkLoop || error.code == .notADirectory {
                throw Self.notADirectory(path)  // swapped for a symlink since the look above
            }
        }()
    }

    deinit {
        _ = Glibc.close(descriptor)  // an O_PATH descriptor: nothing to flush, nothing to report
    }

    /// Checks that each of the database's files (`name`, `name-wal`, `name-shm`, `name-journal`)
    /// is absent or a regular file, beneath the descriptor and without following it.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/escapesContainer`` naming the
    ///   first file that is a symlink (or anything but a regular file); the core's codes when
    ///   `fstatat` fails otherwise.
    func checkFiles(of name: String) throws(SandboxError) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let file = path.description + "/" + name + suffix
            var info = stat()
            if fstatat(descriptor, name + suffix, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
                guard errno == ENOENT else {
                    throw SandboxError.systemCall("fstatat", errno: Errno(rawValue: errno), path: file)
                }
                continue
            }
            let type = info.st_mode & S_IFMT
            guard type == S_IFREG else {
                let kind = type == S_IFLNK ? "symlink" : type == S_IFDIR ? "directory" : "special file"
                throw SandboxError(
                    .escapesContainer,
                    "'\(file)' is a \(kind), not a regular file; a database's files must be plain files inside the container. Remove it and try again.",
                    path: file)
            }
        }
    }

    /// The URI SQLite opens `name` by: `file:/proc/self/fd/<descriptor>/<name>?vfs=sandbox-beneath`,
    /// the name percent-encoded (SQLite decodes it; `?`, `#` and `%` are file-name characters).
    func uri(of name: String) -> String {
        let encoded = PercentEncoding.encode(name)
        return "file:/proc/self/fd/\(descriptor)/\(encoded)?vfs=\(String(cString: CSB_SQLITE_BENEATH_VFS))"
    }

    /// Fails unless `db` really opened its database through the `sandbox-beneath` VFS beneath this
    /// descriptor (an SQLite built without URI file names would have taken the URI as a relative
    /// path): run by every connection of the pool, the readers included, as it opens.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/database`` naming `file`.
    func verify(_ db: Database, file: ContainerPath) throws(SandboxError) {
        guard let connection = db.sqliteConnection, csb_sqlite_opened_beneath(connection, descriptor) == 1 else {
            throw SandboxError(
                .database,
                "SQLite did not open '\(file)' beneath its folder's descriptor (this SQLite ignores the URI's 'vfs' parameter?); the database is not used by host path.",
                path: file.description)
        }
    }

    private static func notADirectory(_ path: ContainerPath) -> SandboxError {
        SandboxError(
            .escapesContainer,
            "'\(path)' is not a real directory (a symlink?); databases open only inside the container. Remove it and try again.",
            path: path.description)
    }
}
