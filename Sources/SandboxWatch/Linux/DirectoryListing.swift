import CSandboxShims
import Glibc

/// Lists an open directory with `getdents64`, typing entries from `d_type` (and `fstatat` where the
/// file system leaves it unknown).
enum DirectoryListing {
    /// The entries of the directory open at `fd` (`O_RDONLY`), without `.` and `..`.
    ///
    /// - Throws: the `getdents64` errors, as ``SandboxError``.
    static func entries(of fd: CInt, path: String) throws(SandboxError) -> [MonitorMachine.ListedEntry] {
        var entries: [MonitorMachine.ListedEntry] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let used = retryingInterrupts { csb_getdents64(fd, buffer.baseAddress, buffer.count) }
            if used < 0 { throw .watch("getdents64", errno: errno, path: path) }
            if used == 0 { return entries }
            var offset = 0
            var name: UnsafePointer<CChar>?
            var type: UInt8 = 0
            var inode: UInt64 = 0
            while true {
                offset = csb_dirent_next(buffer.baseAddress, used, offset, &name, &type, &inode)
                guard offset >= 0, let name else { break }
                let string = String(cString: name)
                if string == "." || string == ".." { continue }
                entries.append(.init(name: string, isDirectory: isDirectory(type, in: fd, named: name)))
            }
        }
    }

    private static func isDirectory(_ type: UInt8, in fd: CInt, named name: UnsafePointer<CChar>) -> Bool {
        guard type == CSB_DT_UNKNOWN else { return type == CSB_DT_DIR }
        var info = stat()
        // Gone since it was listed: a file as good as any; its removal event follows.
        guard fstatat(fd, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFDIR
    }
}
