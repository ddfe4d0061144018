import Glibc

/// An item's identity on the system: its device and inode numbers.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identity of the open descriptor `fd`.
    ///
    /// - Throws: the `fstat(2)` errors, naming `path`.
    package init(of fd: CInt, path: @autoclosure () -> String) throws(SandboxError) {
        var info = stat()
        _ = try syscall("fstat", path: path()) { fstat(fd, &info) }
        self.init(info)
    }
}
