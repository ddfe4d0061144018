import CSandboxShims
import Glibc
import SystemPackage

/// Moves bytes between descriptors the fastest way the kernel allows.
///
/// File to file: a reflink (`FICLONE`, instant on btrfs/xfs), else `copy_file_range` (in-kernel,
/// as `cp` does). To a pipe or socket: `sendfile`. Anything else: `read`/`write` through one
/// reused 1 MiB buffer.
package enum ByteCopier {
    static let chunkSize = 1 << 20

    /// Copies `source` from its current offset to its end into `destination`.
    ///
    /// - Parameter wholeFile: `source` is at offset 0 and `destination` is empty, so a reflink may
    ///   be tried.
    /// - Returns: the number of bytes copied.
    @discardableResult
    package static func copy(
        from source: CInt, to destination: CInt, wholeFile: Bool, path: String
    ) throws(SandboxError) -> Int64 {
        if wholeFile, csb_ficlone(destination, source) == 0 {
            var info = stat()
            _ = try syscall("fstat", path: path) { fstat(source, &info) }
            return Int64(info.st_size)
        }
        var total: Int64 = 0
        // copy_file_range: files on any file system since Linux 5.3.
        while true {
            let copied = csb_copy_file_range(source, destination, 1 << 30)
            if copied > 0 {
                total += Int64(copied)
                continue
            }
            if copied == 0 { return total }
            if errno == EINTR { continue }
            guard [EXDEV, EINVAL, EOPNOTSUPP, ENOSYS, EBADF].contains(errno), total == 0 else {
                throw .systemCall("copy_file_range", errno: Errno(rawValue: errno), path: path)
            }
            break
        }
        // sendfile: a file to anything (a pipe, a socket).
        while true {
            let sent = sendfile(destination, source, nil, 0x7fff_f000)
            if sent > 0 {
                total += Int64(sent)
                continue
            }
            if sent == 0 { return total }
            if errno == EINTR { continue }
            guard [EINVAL, ENOSYS, EOPNOTSUPP].contains(errno), total == 0 else {
                throw .systemCall("sendfile", errno: Errno(rawValue: errno), path: path)
            }
            break
        }
        return try readWrite(from: source, to: destination, path: path)
    }

    /// `read`/`write` through one reused buffer: works for every kind of descriptor.
    static func readWrite(from source: CInt, to destination: CInt, path: String) throws(SandboxError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try syscall("read", path: path) { read(source, buffer.baseAddress, buffer.count) }
            if count == 0 { return total }
            try FullWrite.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: destination, path: path)
            total += Int64(count)
        }
    }
}
