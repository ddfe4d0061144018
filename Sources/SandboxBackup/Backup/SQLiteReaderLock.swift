import Glibc
import SandboxCore
import SystemPackage

/// The locks a reader of an SQLite database holds, taken on descriptors the backup opened itself.
///
/// SQLite locks byte ranges with POSIX record locks (`os_unix.c`): a reader holds the `SHARED`
/// range of the main file (510 bytes after the `PENDING` byte, at 1 GiB), which a writer in
/// rollback-journal mode must lock exclusively before it changes the main file; in WAL mode a
/// checkpoint — the one thing that writes the main file — first locks byte 121 of the `-shm` file
/// (`WAL_CKPT_LOCK`) exclusively. These are taken here as open-file-description locks
/// (`F_OFD_SETLK`), which conflict with POSIX record locks (fcntl(2)) but belong to the
/// descriptor, not the process, and go when it closes. A lock changes nothing in the file.
enum SQLiteReaderLock {
    static let pendingByte: Int = 0x4000_0000
    static let sharedFirst: Int = pendingByte + 2
    static let sharedSize: Int = 510
    /// `WALINDEX_LOCK_OFFSET` (120) + `WAL_CKPT_LOCK` (1).
    static let checkpointByte: Int = 121

    /// Takes the main file's `SHARED` lock as SQLite does (through the `PENDING` byte, so a writer
    /// that waits for readers to leave is not overtaken) and, with `shm`, the checkpoint lock
    /// shared.
    ///
    /// - Returns: whether every lock was taken; when not, none is held (a writer or a checkpoint
    ///   holds one: try again later).
    /// - Throws: the `fcntl` error when the file system has no such locks.
    static func take(main: CInt, shm: CInt?, path: String) throws(SandboxError) -> Bool {
        guard try lock(main, F_RDLCK, pendingByte, 1, path: path) else { return false }
        defer { _ = try? lock(main, F_UNLCK, pendingByte, 1, path: path) }  // unlocking cannot conflict
        guard try lock(main, F_RDLCK, sharedFirst, sharedSize, path: path) else { return false }
        if let shm, try !lock(shm, F_RDLCK, checkpointByte, 1, path: path + "-shm") {
            release(main: main, shm: nil)
            return false
        }
        return true
    }

    /// Lets go of what ``take(main:shm:path:)`` took.
    static func release(main: CInt, shm: CInt?) {
        _ = try? lock(main, F_UNLCK, sharedFirst, sharedSize, path: "")  // unlocking cannot conflict
        if let shm { _ = try? lock(shm, F_UNLCK, checkpointByte, 1, path: "") }  // likewise
    }

    /// `F_OFD_SETLK` (Linux 3.15), which Glibc's module does not export.
    private static let setOpenFileLock: CInt = 37

    /// One non-blocking lock request; `false` when another holds a conflicting lock.
    private static func lock(
        _ fd: CInt, _ type: CInt, _ start: Int, _ length: Int, path: String
    ) throws(SandboxError) -> Bool {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = start
        request.l_len = length
        request.l_pid = 0  // required of open-file-description locks
        while fcntl(fd, setOpenFileLock, &request) != 0 {
            switch errno {
            case EINTR: continue
            case EAGAIN, EACCES: return false
            default: throw .systemCall("fcntl", errno: Errno(rawValue: errno), path: path)
            }
        }
        return true
    }
}
