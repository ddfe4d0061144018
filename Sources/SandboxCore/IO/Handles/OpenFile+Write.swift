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
            try FullWrite.write(buffer, to: fd, atOffset: offset, path: path)
        }
    }
}
