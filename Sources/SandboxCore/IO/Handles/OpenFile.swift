import CSandboxShims
import Glibc
import SystemPackage

/// An open file: the `NSFileHandle` and POSIX level of this library.
///
/// Reads and writes at the current position (`read`, `readv`, `write`, `writev`) or at an offset
/// (`pread`, `preadv`, `pwrite`, `pwritev`), `lseek`, `fsync`/`fdatasync`, `ftruncate`, `fallocate`.
/// Every call blocks the calling thread for one system call (or a few, after short transfers); for
/// async work, use a stream, a writer or an ``IOChannel``, which run the same calls on the
/// ``IOEngine``.
///
/// The descriptor is closed exactly once: by ``close()``, or when the last reference goes away. A
/// call running on another thread when ``close()`` is called finishes first; calls made after it
/// throw ``SandboxError/Code/closed``. Opened with
/// `O_CLOEXEC`, so it does not leak into child processes.
public final class OpenFile: Sendable {
    /// The container path the file was opened at, for messages.
    public let path: String
    /// What the handle may do.
    public let access: FileAccess
    let descriptor: SharedDescriptor
    let buffers: BufferPool

    init(_ descriptor: consuming OwnedDescriptor, path: String, access: FileAccess, buffers: BufferPool) {
        self.path = path
        self.access = access
        self.descriptor = SharedDescriptor(descriptor, path: path)
        self.buffers = buffers
    }

    /// Closes the file. Later calls throw; closing again does nothing.
    ///
    /// - Throws: the `close(2)` error (``SandboxError/Code/io`` for a write-back failure on some
    ///   file systems); the descriptor is released all the same.
    public func close() throws(SandboxError) {
        try descriptor.close()
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { descriptor.isClosed }

    /// Runs `body` with the raw descriptor, which stays open during the call. Do not close it.
    ///
    /// - Throws: ``SandboxError/Code/invalidArgument`` after ``close()``, and what `body` throws.
    public func withUnsafeDescriptor<R>(_ body: (FileDescriptor) throws(SandboxError) -> R) throws(SandboxError) -> R {
        try descriptor.use { fd throws(SandboxError) in try body(FileDescriptor(rawValue: fd)) }
    }

    /// Throws unless the handle was opened for reading (or writing, when `writing`).
    func requireAccess(writing: Bool) throws(SandboxError) {
        if writing ? access.canWrite : access.canRead { return }
        let allowed = writing ? "reading" : "writing"
        throw .rule(
            .invalidArgument,
            "'\(path)' was opened for \(allowed) only; open it for \(writing ? "writing" : "reading") to do this.",
            path: path)
    }

    // MARK: Position and size

    /// Moves the position (`lseek`).
    ///
    /// - Returns: the new position from the start of the file.
    /// - Throws: ``SandboxError/Code/invalidArgument`` when the result would be negative.
    @discardableResult
    public func seek(to offset: Int64, from origin: SeekOrigin = .start) throws(SandboxError) -> Int64 {
        if origin == .start && offset < 0 { throw .negative("offset", offset, path: path) }
        return try descriptor.use { fd throws(SandboxError) in
            Int64(try syscall("lseek", path: path) { lseek(fd, off_t(offset), origin.whence) })
        }
    }

    /// The current position.
    public func currentOffset() throws(SandboxError) -> Int64 {
        try seek(to: 0, from: .current)
    }

    /// The file's size in bytes (`fstat`).
    public func size() throws(SandboxError) -> Int64 {
        try descriptor.use { fd throws(SandboxError) in try Self.size(of: fd, path: path) }
    }

    static func size(of fd: CInt, path: String) throws(SandboxError) -> Int64 {
        var info = stat()
        _ = try syscall("fstat", path: path) { fstat(fd, &info) }
        return Int64(info.st_size)
    }

    // MARK: Durability and space

    /// Flushes written data to the device (`fsync`, or `fdatasync` for ``SyncScope/data``).
    ///
    /// - Throws: ``SandboxError/Code/io`` when the device reports a write-back failure,
    ///   ``SandboxError/Code/noSpace`` on some network file systems.
    public func synchronize(_ scope: SyncScope = .dataAndMetadata) throws(SandboxError) {
        try descriptor.use { fd throws(SandboxError) in
            switch scope {
            case .dataAndMetadata: _ = try syscall("fsync", path: path) { fsync(fd) }
            case .data: _ = try syscall("fdatasync", path: path) { fdatasync(fd) }
            }
        }
    }

    /// Sets the file's size (`ftruncate`): cut, or extended with zeros.
    ///
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative size or a handle not open for
    ///   writing, ``SandboxError/Code/fileTooLarge`` past the file system's limit.
    public func truncate(to size: Int64) throws(SandboxError) {
        guard size >= 0 else { throw .negative("size", size, path: path) }
        try requireAccess(writing: true)
        try descriptor.use { fd throws(SandboxError) in
            _ = try syscall("ftruncate", path: path) { ftruncate(fd, off_t(size)) }
        }
    }

    /// Reserves disk space for `length` bytes from `offset` (`fallocate`), so that later writes
    /// there cannot fail for lack of space. The file grows to cover the range unless `keepingSize`.
    ///
    /// - Throws: ``SandboxError/Code/noSpace`` at once when the space is not there,
    ///   ``SandboxError/Code/unsupported`` on file systems without `fallocate`,
    ///   ``SandboxError/Code/invalidArgument`` for a negative offset or a length of 0 or less.
    public func allocate(_ length: Int64, atOffset offset: Int64 = 0, keepingSize: Bool = false) throws(SandboxError) {
        guard offset >= 0 else { throw .negative("offset", offset, path: path) }
        guard length > 0 else {
            throw .rule(
                .invalidArgument, "Cannot reserve \(length) bytes in '\(path)': the length must be positive.",
                path: path)
        }
        let keepSize: CInt = 0x01  // FALLOC_FL_KEEP_SIZE, linux/falloc.h
        try descriptor.use { fd throws(SandboxError) in
            _ = try syscall("fallocate", path: path) { csb_fallocate(fd, keepingSize ? keepSize : 0, offset, length) }
        }
    }
}
