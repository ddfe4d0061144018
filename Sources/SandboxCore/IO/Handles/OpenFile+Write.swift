import Glibc
import SystemPackage

extension OpenFile {
    /// Writes all of `data` at the current position, one `writev` per up to 1024 regions,
    /// continuing after short writes.
    ///
    /// - Throws: ``SandboxError/Code/noSpace`` when the file system is full (some bytes may have
    ///   been written), ``SandboxError/Code/invalidArgument`` after ``close()`` or on a handle not
    ///   open for writing, ``SandboxError/Code/fileTooLarge``, ``SandboxError/Code/io``.
    public func write(_ data: DataRegions) throws(SandboxError) {
        try requireAccess(writing: true)
        try descriptor.use { fd throws(SandboxError) in
            try VectoredIO.writeAll(data, to: fd, atOffset: nil, path: path)
        }
    }

    /// Writes all of `data` at `offset` (`pwritev`), leaving the position alone. Writing past the
    /// end extends the file (with a hole before the data).
    ///
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative offset, and as ``write(_:)``.
    public func write(_ data: DataRegions, atOffset offset: Int64) throws(SandboxError) {
        guard offset >= 0 else { throw .negative("offset", offset, path: path) }
        try requireAccess(writing: true)
        try descriptor.use { fd throws(SandboxError) in
            try VectoredIO.writeAll(data, to: fd, atOffset: offset, path: path)
        }
    }

    /// Writes `bytes` at `offset`, or at the current position when `offset` is `nil`.
    ///
    /// - Throws: as ``write(_:atOffset:)-(DataRegions,_)``.
    public func write(contentsOf bytes: some Sequence<UInt8>, atOffset offset: Int64? = nil) throws(SandboxError) {
        let data = DataRegions(bytes)
        if let offset {
            try write(data, atOffset: offset)
        } else {
            try write(data)
        }
    }

    /// Writes all of `buffer` at `offset` (`pwrite`), or at the current position (`write`) when
    /// `offset` is `nil`, without copying it.
    ///
    /// - Throws: as ``write(_:atOffset:)``.
    public func write(_ buffer: UnsafeRawBufferPointer, atOffset offset: Int64? = nil) throws(SandboxError) {
        if let offset, offset < 0 { throw .negative("offset", offset, path: path) }
        try requireAccess(writing: true)
        try descriptor.use { fd throws(SandboxError) in
            var done = 0
            while done < buffer.count {
                let source = buffer.baseAddress.map { $0 + done }
                let count = buffer.count - done
                let written: Int
                if let offset {
                    written = try syscall("pwrite", path: path) {
                        pwrite(fd, source, count, off_t(offset + Int64(done)))
                    }
                } else {
                    written = try syscall("write", path: path) { Glibc.write(fd, source, count) }
                }
                if written == 0 { throw .systemCall("write", errno: .noSpace, path: path) }
                done += written
            }
        }
    }
}
