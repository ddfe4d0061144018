import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Streams the file at `path` through `body`, one buffer at a time, without holding the file in
    /// memory (for hashing, say): the synchronous, callback form of ``readChunks(of:chunkSize:range:engine:)``.
    ///
    /// The buffer passed to `body` is valid only during the call and is reused for the next chunk.
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - chunkSize: the most bytes handed to `body` at once.
    ///   - body: called with each chunk, in order; an error it throws ends the read and is
    ///     rethrown.
    /// - Returns: the number of bytes read.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notARegularFile``, resolution errors, and what `body` throws.
    @discardableResult
    public func forEachChunk(
        of path: ContainerPath,
        chunkSize: Int = IOEngine.defaultChunkSize,
        _ body: (UnsafeRawBufferPointer) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(chunkSize, 1), alignment: 16)
        defer { buffer.deallocate() }
        return try forEachChunk(of: path, using: buffer, body)
    }

    /// ``forEachChunk(of:chunkSize:_:)`` through a buffer the caller owns, so that reading many
    /// files (hashing a whole bundle, say) allocates once rather than once a file.
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - buffer: where each chunk is read; its size is the chunk size. Must not be empty.
    ///   - body: called with each chunk (a slice of `buffer`), in order; an error it throws ends
    ///     the read and is rethrown.
    @discardableResult
    public func forEachChunk(
        of path: ContainerPath,
        using buffer: UnsafeMutableRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        precondition(!buffer.isEmpty, "forEachChunk needs a non-empty buffer")
        let file = try openRegularFile(path)
        var total: Int64 = 0
        while true {
            let count = try syscall("read", path: path.description) {
                read(file.rawValue, buffer.baseAddress, buffer.count)
            }
            if count == 0 { return total }
            total += Int64(count)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
