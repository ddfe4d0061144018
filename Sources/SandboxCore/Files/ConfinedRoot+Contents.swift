import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// The default limit of ``readContents(of:maximumSize:)``: larger files should be streamed.
    public static let defaultMaximumReadSize = 64 << 20

    /// Reads the whole file at `path` into memory.
    ///
    /// The bytes are read with `pread` into one array sized from `fstat`; a file that grew meanwhile
    /// is read on, within the limit. ``readContents(of:maximumSize:engine:)`` does the same on an
    /// ``IOEngine``, for async callers.
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - maximumSize: refuse files larger than this many bytes (64 MiB by default).
    /// - Throws: ``SandboxError/Code/fileTooLarge`` past `maximumSize` (stream the file instead,
    ///   e.g. ``copyContents(of:to:)`` or ``readChunks(of:chunkSize:range:engine:)``),
    ///   ``SandboxError/Code/notARegularFile``, ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notFound``, resolution errors.
    public func readContents(
        of path: ContainerPath, maximumSize: Int = defaultMaximumReadSize
    ) throws(SandboxError) -> [UInt8] {
        let file = try openRegularFile(path)
        var info = stat()
        _ = try syscall("fstat", path: path.description) { fstat(file.rawValue, &info) }
        guard info.st_size <= maximumSize else {
            throw .rule(
                .fileTooLarge,
                "'\(path)' is \(info.st_size) bytes, more than the \(maximumSize)-byte limit for reading a whole file into memory. Stream it instead.",
                path: path.description)
        }
        return try Self.readWhole(file.rawValue, size: Int(info.st_size), maximumSize: maximumSize, path: path)
    }

    /// Reads the file behind `fd` from offset 0: `size` bytes (from `fstat`) and one more, uninitialized
    /// rather than zeroed, to see whether it grew; a file that grew is read on, within `maximumSize`.
    private static func readWhole(
        _ fd: CInt, size: Int, maximumSize: Int, path: ContainerPath
    ) throws(SandboxError) -> [UInt8] {
        var failure: SandboxError?
        var bytes = [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            do throws(SandboxError) {
                initialized = try VectoredIO.fill(
                    UnsafeMutableRawBufferPointer(buffer), from: fd, atOffset: 0, path: path.description)
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        var count = bytes.count
        // Not full: the file ended where fstat said, or before. Full: it grew since fstat.
        guard count > size else { return bytes }
        while true {
            guard count <= maximumSize else {
                throw .rule(
                    .fileTooLarge,
                    "'\(path)' grew past the \(maximumSize)-byte limit while being read. Stream it instead.",
                    path: path.description)
            }
            if count == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 4096), maximumSize - count + 1)))
            }
            let read = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SandboxError) in
                    try syscall("pread", path: path.description) {
                        pread(fd, buffer.baseAddress.map { $0 + count }, buffer.count - count, off_t(count))
                    }
                }
            }.get()
            if read == 0 { break }
            count += read
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Writes `bytes` as the contents of the file at `path`.
    ///
    /// ``writeContents(_:to:options:engine:)-(DataRegions,_,_,_)`` does the same on an ``IOEngine``, for
    /// async callers.
    ///
    /// - Parameters:
    ///   - bytes: the new contents.
    ///   - path: the file to create or replace, relative to the root.
    ///   - options: ``WriteOptions/atomic`` by default, as every whole-file write here: readers see
    ///     the old contents or the new ones, never a mix, as with Foundation's
    ///     `Data.write(to:options: .atomic)`. Add ``WriteOptions/durable`` to survive a power cut
    ///     (it costs two `fsync`s) and ``WriteOptions/withoutOverwriting`` to refuse to replace a
    ///     file.
    /// - Throws: ``SandboxError/Code/alreadyExists``, ``SandboxError/Code/noSpace`` (the previous
    ///   contents are intact), ``SandboxError/Code/notFound`` for a missing parent, resolution errors.
    public func writeContents(
        _ bytes: some Collection<UInt8>, to path: ContainerPath, options: WriteOptions = .atomic
    ) throws(SandboxError) {
        let contiguous = Array(bytes)
        try writeFile(at: path, options: options) { fd throws(SandboxError) in
            try contiguous.withBytes { (buffer) throws(SandboxError) in
                try FullWrite.write(buffer, to: fd, path: path.description)
            }
        }
    }

    /// Copies a file from the host (outside any container) to `path`, streaming it through the
    /// kernel (`copy_file_range`) without holding it in memory.
    ///
    /// - Parameters:
    ///   - hostPath: a path on the host, opened as given: it is the caller's, not the app's.
    ///   - path: the file to create or replace in the container, relative to the root.
    ///   - options: ``WriteOptions/atomic`` by default, as ``writeContents(_:to:options:)``.
    /// - Returns: the number of bytes copied.
    /// - Throws: ``SandboxError/Code/notFound`` for a missing host file, and the errors of
    ///   ``writeContents(_:to:options:)``.
    @discardableResult
    public func importFile(
        fromHost hostPath: String, to path: ContainerPath, options: WriteOptions = .atomic
    ) throws(SandboxError) -> Int64 {
        let source = OwnedDescriptor(
            taking: try syscall("open", path: hostPath) { Glibc.open(hostPath, O_RDONLY | CSB_O_CLOEXEC) })
        var info = stat()
        _ = try syscall("fstat", path: hostPath) { fstat(source.rawValue, &info) }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw .rule(
                .isADirectory, "'\(hostPath)' is a directory; give a file to copy into the container.", path: hostPath)
        }
        var copied: Int64 = 0
        try writeFile(at: path, options: options) { fd throws(SandboxError) in
            copied = try ByteCopier.copy(
                from: source.rawValue, to: fd, wholeFile: info.st_mode & S_IFMT == S_IFREG, path: path.description)
        }
        return copied
    }

    /// Streams the contents of the file at `path` to the open descriptor `output` (a file, pipe or
    /// socket) without holding it in memory. `output` is not closed.
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - output: where the bytes go, from its current position; it stays open.
    /// - Returns: the number of bytes copied.
    /// - Throws: as ``readContents(of:maximumSize:)``, less the size limit.
    @discardableResult
    public func copyContents(of path: ContainerPath, to output: FileDescriptor) throws(SandboxError) -> Int64 {
        let file = try openRegularFile(path)
        return try ByteCopier.copy(from: file.rawValue, to: output.rawValue, wholeFile: false, path: path.description)
    }

    /// Creates or replaces the file at `path`, with `body` writing its contents to a descriptor,
    /// then publishes it (see ``PendingFile``); if `body` throws, nothing is published.
    package func writeFile(
        at path: ContainerPath, options: WriteOptions, _ body: (CInt) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        try beginWrite(at: path, options: options).write(body)
    }

    /// Opens a regular file for reading (see ``openRegularFileDescribed(_:)``).
    func openRegularFile(_ path: ContainerPath) throws(SandboxError) -> OwnedDescriptor {
        let opened = try openRegularFileDescribed(path)
        return opened.descriptor
    }
}
