import CSandboxShims
import GRDB
import Glibc
import SandboxCore
import SystemPackage

/// SQLite databases in a container are copied as consistent databases, never read as plain files
/// while the app writes them — and SQLite never opens them where they are.
///
/// The database's files (`name` and its `-wal`, `-shm` and `-journal`) are opened read-only in the
/// one descriptor of their folder, none through a symlink; the file checked is the file copied —
/// nothing is opened again by path, so an app that renames a symlink to another app's database
/// over its own after the scan gets nothing of the other's. While SQLite's reader locks are held
/// on those descriptors (``SQLiteReaderLock``: no writer commits to the main file, no checkpoint
/// runs), the main file, its `-wal` and `-journal` are copied into the backup's private scratch
/// folder and checked unchanged; SQLite opens only the copy (recovering its WAL or rolling back its
/// journal there, as the app's own SQLite would) and its online backup API makes one
/// self-contained database of it. Nothing in the container is written: no `-wal` or `-shm`
/// appears beside the database, no time moves.
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

    /// A node's ``TreeNode/source`` when its contents were read through SQLite's online backup.
    static let source = "sqlite-online-backup"

    /// Whether the regular file at `path` starts with SQLite's header: which files ``copy(_:in:into:waitingUntil:)``
    /// is for (it checks again, on the file it copies).
    static func isDatabase(_ path: ContainerPath, in root: ConfinedRoot, size: Int64) throws(SandboxError) -> Bool {
        // A database is whole pages (a power of two from 512 to 65,536 bytes): anything else is not
        // opened, which spares most files a second open.
        guard size >= 512, size % 512 == 0 else { return false }
        let file = try root.openFile(forReadingAt: path)
        defer { _ = try? file.close() }  // read-only: nothing to lose on a failed close
        return try file.read(upToCount: header.count, atOffset: 0).bytes == header
    }

    /// Copies the database at `path` in `root` into `scratch` as one self-contained database.
    ///
    /// - Parameters:
    ///   - deadline: how long an app may hold a write, a checkpoint or an exclusive connection
    ///     open before the database is given up.
    ///   - timeout: the wait that `deadline` ends, for the message.
    /// - Returns: the copy's path in `scratch.root` (the caller removes it), or `nil` when the file
    ///   no longer starts with SQLite's header.
    /// - Throws: ``SandboxCore/SandboxError/Code/itemLocked`` when the app held its database
    ///   until `deadline`; ``/SandboxCore/SandboxError/Code/symlinkLoop`` when one of its files is
    ///   a symlink, ``/SandboxCore/SandboxError/Code/notARegularFile`` when one is not a file;
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` when SQLite cannot read the copy; file-system
    ///   errors.
    static func copy(
        _ path: ContainerPath, in root: ConfinedRoot, into scratch: ScratchDirectory,
        waitingUntil deadline: ContinuousClock.Instant, timeout: Duration
    ) throws(SandboxError) -> ContainerPath? {
        let files = try DatabaseFiles(path, in: root)
        var start = [UInt8](repeating: 0, count: header.count)
        guard try files.read(into: &start, at: 0, from: files.main) == header.count, start == header else {
            return nil
        }
        let base = "db-\(RandomToken.make()).sqlite"
        let copied = try BoundedPoll.until(deadline) { () throws(SandboxError) -> Bool in
            try copyLocked(files, to: base, in: scratch)
        }
        guard copied else {
            throw SandboxError(
                .itemLocked,
                "The app kept its database '\(path)' busy (a write, a checkpoint or an exclusive connection) for longer than the backup waits (\(timeout)); it was not backed up. Back up again when the app is idle, or wait longer (BackupOptions.lockTimeout).",
                path: path.description)
        }
        let output = "\(base).backup"
        defer {
            for suffix in [""] + companionSuffixes {
                _ = try? scratch.root.removeItem(at: ContainerPath(base + suffix))  // scratch clean-up only
            }
        }
        do {
            let input = try DatabaseQueue(path: scratch.hostPath(base))
            let copy = try DatabaseQueue(path: scratch.hostPath(output))
            try input.backup(to: copy)
            try input.close()
            try copy.close()
        } catch {
            throw SandboxError(
                .corrupt,
                "SQLite could not read the database '\(root.displayPath(of: path))' (\(error)). Check that it is a database.",
                path: path.description)
        }
        return try ContainerPath(output)
    }

    /// Under SQLite's reader locks, copies the main file, `-wal` and `-journal` to `base`,
    /// `base-wal` and `base-journal` in `scratch`, and checks that the main file and the WAL's
    /// header did not change meanwhile.
    ///
    /// - Returns: `false` when a lock is held by a writer, or the files changed: try again.
    private static func copyLocked(
        _ files: DatabaseFiles, to base: String, in scratch: ScratchDirectory
    ) throws(SandboxError) -> Bool {
        guard try SQLiteReaderLock.take(main: files.main, shm: files.shm, path: files.display) else { return false }
        defer { SQLiteReaderLock.release(main: files.main, shm: files.shm) }
        let before = try files.state()
        try copy(files.main, to: base, in: scratch, display: files.display)
        if let wal = files.wal { try copy(wal, to: base + "-wal", in: scratch, display: files.display + "-wal") }
        if let journal = files.journal {
            try copy(journal, to: base + "-journal", in: scratch, display: files.display + "-journal")
        }
        guard try files.state() == before else {
            for suffix in ["", "-wal", "-journal"] {
                _ = try? scratch.root.removeItem(at: ContainerPath(base + suffix))  // to be copied again
            }
            return false
        }
        return true
    }

    /// Copies the whole file open as `fd` to the new file `name` in `scratch`.
    private static func copy(
        _ fd: CInt, to name: String, in scratch: ScratchDirectory, display: String
    ) throws(SandboxError) {
        let output = try scratch.root.openFileDescriptor(
            at: try ContainerPath(name), creatingWith: [.ownerReadWrite])
        defer { _ = Glibc.close(output.rawValue) }  // a file of the scratch folder, read back by SQLite
        _ = try syscall("ftruncate", path: display) { ftruncate(output.rawValue, 0) }
        _ = try syscall("lseek", path: display) { lseek(fd, 0, SEEK_SET) }
        try ByteCopier.copy(from: fd, to: output.rawValue, wholeFile: true, path: display)
    }
}

/// A database's files, opened read-only in their folder's descriptor without following a symlink.
private final class DatabaseFiles {
    let display: String
    let main: CInt
    let wal: CInt?
    let shm: CInt?
    let journal: CInt?
    private let folder: CInt
    private let name: [UInt8]

    init(_ path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        display = root.displayPath(of: path)
        let parent = try root.openParent(of: path)
        name = parent.name.bytes
        folder = try syscall("dup", path: display) { fcntl(parent.rawValue, F_DUPFD_CLOEXEC, 0) }
        var opened: [CInt] = []
        do throws(SandboxError) {
            guard let main = try Self.open(name, in: folder, display: display) else {
                throw SandboxError.systemCall("openat", errno: .noSuchFileOrDirectory, path: path.description)
            }
            opened.append(main)
            self.main = main
            wal = try Self.open(name + Array("-wal".utf8), in: folder, display: display + "-wal")
            if let wal { opened.append(wal) }
            shm = try Self.open(name + Array("-shm".utf8), in: folder, display: display + "-shm")
            if let shm { opened.append(shm) }
            journal = try Self.open(name + Array("-journal".utf8), in: folder, display: display + "-journal")
        } catch {
            for fd in opened + [folder] { Glibc.close(fd) }
            throw error
        }
    }

    deinit {
        for fd in [main, wal, shm, journal, folder].compactMap({ $0 }) { Glibc.close(fd) }
    }

    /// What must not change while the files are copied: the main file's size and modification
    /// time, the first 32 bytes of the WAL (its salts change when a writer starts it over), and
    /// whether a `-shm` file exists (a connection that opened meanwhile could checkpoint).
    struct State: Equatable {
        var size: Int64
        var modified: timespec
        var walHeader: [UInt8]
        var hasSharedMemory: Bool

        static func == (left: State, right: State) -> Bool {
            left.size == right.size && left.modified.tv_sec == right.modified.tv_sec
                && left.modified.tv_nsec == right.modified.tv_nsec && left.walHeader == right.walHeader
                && left.hasSharedMemory == right.hasSharedMemory
        }
    }

    func state() throws(SandboxError) -> State {
        var info = stat()
        _ = try syscall("fstat", path: display) { fstat(main, &info) }
        var walHeader = [UInt8](repeating: 0, count: 32)
        if let wal { walHeader.removeSubrange(try read(into: &walHeader, at: 0, from: wal)...) }
        var shmInfo = stat()
        let shmName = FileName(uncheckedBytes: name + Array("-shm".utf8))
        let hasSharedMemory = fstatat(folder, shmName.cString, &shmInfo, AT_SYMLINK_NOFOLLOW) == 0
        return State(
            size: Int64(info.st_size), modified: info.st_mtim, walHeader: walHeader, hasSharedMemory: hasSharedMemory)
    }

    /// Reads up to `buffer.count` bytes at `offset` of `fd`; returns how many.
    func read(into buffer: inout [UInt8], at offset: Int64, from fd: CInt) throws(SandboxError) -> Int {
        let count = buffer.count
        return try syscall("pread", path: display) {
            buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, Int(offset)) }
        }
    }

    /// Opens `name` in `folder` read-only, refusing a symlink and anything but a regular file;
    /// `nil` when there is no such file.
    private static func open(_ name: [UInt8], in folder: CInt, display: String) throws(SandboxError) -> CInt? {
        guard name.count <= Int(NAME_MAX) else { return nil }  // too long a name to exist
        let fd = openat(
            folder, FileName(uncheckedBytes: name).cString, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP {
                throw SandboxError(
                    .symlinkLoop,
                    "'\(display)' is a symlink; a database's files must be plain files inside the container, so it was not backed up.",
                    path: display)
            }
            throw .systemCall("openat", errno: Errno(rawValue: errno), path: display)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw SandboxError(
                .notARegularFile, "'\(display)' is not a regular file; a database's files must be plain files.",
                path: display)
        }
        return fd
    }
}
