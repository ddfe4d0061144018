import CSandboxShims
import Glibc
import SystemPackage

/// Reads a directory's entries with `getdents64(2)` into a reusable buffer.
///
/// One buffer serves a whole walk (see ``TreeWalk``): names are used in place or copied out as
/// ``FileName``s (raw bytes, never repaired into valid UTF-8) before the next directory is read.
package struct DirectoryReader: ~Copyable {
    private let buffer: UnsafeMutableRawBufferPointer

    package init(bufferSize: Int = 64 * 1024) {
        buffer = .allocate(byteCount: bufferSize, alignment: 8)
    }

    deinit {
        buffer.deallocate()
    }

    /// All entries of the open directory `fd` except `.` and `..`.
    package func entries(of fd: CInt, path: String) throws(SandboxError) -> [(name: FileName, type: UInt8)] {
        var result: [(name: FileName, type: UInt8)] = []
        try forEachEntry(of: fd, path: path) { name, type throws(SandboxError) in
            result.append((FileName(listed: name), type))
        }
        return result
    }

    /// Calls `body` with each entry's NUL-terminated name (valid only during the call: it points
    /// into the shared buffer) and `d_type`, without allocating. `body` must not use this reader.
    package func forEachEntry(
        of fd: CInt,
        path: @autoclosure () -> String,
        _ body: (UnsafePointer<CChar>, UInt8) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        while try forEachEntryOfNextRead(of: fd, path: path(), body) {}
    }

    /// ``forEachEntry(of:path:_:)`` for the entries one `getdents64` returns (one buffer's worth),
    /// so that a caller can list a large directory a batch at a time, doing other work between
    /// batches (the directory's offset is kept by `fd`).
    ///
    /// - Returns: `false` once the directory has no more entries.
    package func forEachEntryOfNextRead(
        of fd: CInt,
        path: @autoclosure () -> String,
        _ body: (UnsafePointer<CChar>, UInt8) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Bool {
        let used = try syscall("getdents64", path: path()) {
            csb_getdents64(fd, buffer.baseAddress, buffer.count)
        }
        if used == 0 { return false }
        var offset = 0
        var name: UnsafePointer<CChar>?
        var type: UInt8 = 0
        var inode: UInt64 = 0
        while true {
            offset = csb_dirent_next(buffer.baseAddress, used, offset, &name, &type, &inode)
            guard offset >= 0, let name else { break }
            // Skip "." and "..".
            if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { continue }
            try body(name, type)
        }
        return true
    }
}
