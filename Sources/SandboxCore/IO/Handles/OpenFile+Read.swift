import Glibc
import SystemPackage

extension OpenFile {
    /// Reads up to `count` bytes at the current position (`read`), advancing it.
    ///
    /// - Returns: the bytes read, fewer than `count` only at the end of the file (empty there).
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative count or after ``close()``;
    ///   ``SandboxError/Code/io`` for device errors.
    public func read(upToCount count: Int) throws(SandboxError) -> DataRegions {
        try read(upToCount: count, at: nil)
    }

    /// Reads up to `count` bytes at `offset` (`pread`), leaving the position alone.
    ///
    /// - Returns: the bytes read, fewer than `count` only when the file ends first; empty when
    ///   `offset` is exactly the file's size.
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative offset or count, and for an
    ///   offset past the end of the file; the errors of ``read(upToCount:)``.
    public func read(upToCount count: Int, atOffset offset: Int64) throws(SandboxError) -> DataRegions {
        try read(upToCount: count, at: offset)
    }

    private func read(upToCount count: Int, at offset: Int64?) throws(SandboxError) -> DataRegions {
        guard count >= 0 else { throw .negative("count", Int64(count), path: path) }
        if let offset, offset < 0 { throw .negative("offset", offset, path: path) }
        try requireAccess(writing: false)
        return try descriptor.use { fd throws(SandboxError) in
            var result = DataRegions()
            var position = offset
            while result.count < count {
                let storage = buffers.take(minimumCapacity: min(count - result.count, IOEngine.defaultChunkSize))
                let want = min(storage.capacity, count - result.count)
                let read = try VectoredIO.fill(
                    UnsafeMutableRawBufferPointer(rebasing: storage.mutableBytes[0..<want]), from: fd,
                    atOffset: position, path: path)
                result.append(DataRegions(storage: storage, count: read))
                position = position.map { $0 + Int64(read) }
                if read < want { break }
            }
            if let offset, result.isEmpty, count > 0, offset > 0 {
                try Self.checkNotPastEnd(offset, fd: fd, path: path)
            }
            return result
        }
    }

    /// Reads from the current position to the end of the file.
    ///
    /// - Parameter maximumSize: refuse to read more than this many bytes.
    /// - Throws: ``SandboxError/Code/fileTooLarge`` when more than `maximumSize` bytes remain (read
    ///   the file in chunks instead, with ``ConfinedRoot/readChunks(of:chunkSize:range:engine:)``),
    ///   and the errors of ``read(upToCount:)``.
    public func readToEnd(maximumSize: Int = ConfinedRoot.defaultMaximumReadSize) throws(SandboxError) -> DataRegions {
        let data = try read(upToCount: maximumSize == .max ? .max : maximumSize + 1)
        guard data.count <= maximumSize else {
            throw .rule(
                .fileTooLarge,
                "'\(path)' has more than the \(maximumSize)-byte limit for reading into memory left. Read it in chunks instead.",
                path: path)
        }
        return data
    }

    /// Reads into `buffer` at `offset` (`pread`), or at the current position (`read`) when `offset`
    /// is `nil`, until it is full or the file ends.
    ///
    /// - Returns: the bytes read.
    /// - Throws: as ``read(upToCount:atOffset:)``.
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64? = nil
    ) throws(SandboxError) -> Int {
        if let offset, offset < 0 { throw .negative("offset", offset, path: path) }
        try requireAccess(writing: false)
        return try descriptor.use { fd throws(SandboxError) in
            let read = try VectoredIO.fill(buffer, from: fd, atOffset: offset, path: path)
            if let offset, read == 0, buffer.count > 0, offset > 0 {
                try Self.checkNotPastEnd(offset, fd: fd, path: path)
            }
            return read
        }
    }

    /// Scatters one read over `buffers` in order (`preadv` at `offset`, `readv` at the current
    /// position when `offset` is `nil`). One system call: it may return fewer bytes than the
    /// buffers hold.
    ///
    /// - Returns: the bytes read.
    /// - Throws: as ``read(upToCount:atOffset:)``.
    public func read(
        into buffers: [UnsafeMutableRawBufferPointer], atOffset offset: Int64? = nil
    ) throws(SandboxError) -> Int {
        if let offset, offset < 0 { throw .negative("offset", offset, path: path) }
        try requireAccess(writing: false)
        return try descriptor.use { fd throws(SandboxError) in
            try VectoredIO.read(into: buffers, from: fd, atOffset: offset, path: path)
        }
    }

    /// Throws when `offset` lies beyond the end of the file behind `fd`.
    static func checkNotPastEnd(_ offset: Int64, fd: CInt, path: String) throws(SandboxError) {
        let size = try size(of: fd, path: path)
        if offset > size { throw .pastEnd(offset, size: size, path: path) }
    }
}
