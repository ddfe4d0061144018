import SandboxCore

/// Cuts a file into content-defined chunks while streaming it: memory holds one read buffer
/// (1 MiB) and one chunk (at most ``ChunkingParameters/maximumSize``), never the whole file.
public final class ContentChunker {
    /// The chunk sizes cut to.
    public let parameters: ChunkingParameters
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let chunkBuffer: UnsafeMutableRawBufferPointer

    /// A chunker with its buffers; reuse it for many files.
    public init(parameters: ChunkingParameters = .standard, readSize: Int = 1 << 20) {
        self.parameters = parameters
        readBuffer = .allocate(byteCount: readSize, alignment: 16)
        chunkBuffer = .allocate(byteCount: parameters.maximumSize, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
        chunkBuffer.deallocate()
    }

    /// Streams the regular file at `path` in `root` and calls `body` with each chunk, in order. An
    /// empty file has no chunks. The buffer given to `body` is valid only during the call.
    ///
    /// - Returns: the number of bytes read.
    /// - Throws: the errors of ``/SandboxCore/ConfinedRoot/forEachChunk(of:using:_:)`` and what
    ///   `body` throws.
    @discardableResult
    public func forEachChunk(
        of path: ContainerPath, in root: ConfinedRoot,
        _ body: (UnsafeRawBufferPointer) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        var cdc = FastCDC(parameters: parameters)
        var filled = 0
        let chunk = chunkBuffer
        let total = try root.forEachChunk(of: path, using: readBuffer) { (bytes) throws(SandboxError) in
            var rest = bytes
            while !rest.isEmpty {
                let (count, ends) = cdc.consume(rest)
                UnsafeMutableRawBufferPointer(rebasing: chunk[filled..<filled + count]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: rest[0..<count]))
                filled += count
                rest = UnsafeRawBufferPointer(rebasing: rest[count...])
                if ends {
                    try body(UnsafeRawBufferPointer(rebasing: chunk[0..<filled]))
                    filled = 0
                }
            }
        }
        if filled > 0 { try body(UnsafeRawBufferPointer(rebasing: chunk[0..<filled])) }
        return total
    }
}
