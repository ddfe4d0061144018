import Glibc

/// The contents of a file as an asynchronous sequence of chunks, read from start to end on an
/// ``IOEngine`` (the role of `NSInputStream`).
///
/// Each chunk is one ``DataRegions`` region of at most `chunkSize` bytes, read with `pread` into a
/// buffer from the engine's pool: a chunk's buffer goes back to the pool when the chunk is dropped,
/// so a loop that does not keep its chunks reads a file of any size with a handful of buffers. Up to
/// four chunks are read ahead of the consumer, several at a time with one `preadv`.
///
/// Each iteration reads the file from the start of the range again, with its own read-ahead; the
/// file stays open while the sequence or an iterator exists.
public struct FileChunks: AsyncSequence, Sendable {
    /// Each chunk: one region of at most the chunk size.
    public typealias Element = DataRegions
    /// The error a read ends with, e.g. ``SandboxError/Code/io``.
    public typealias Failure = SandboxError

    /// Parts read ahead of the consumer.
    static let readAhead = 4

    let descriptor: SharedDescriptor
    let range: Range<Int64>?
    let chunkSize: Int
    let engine: IOEngine

    /// An iterator that reads the range from its start, with its own read-ahead.
    public func makeAsyncIterator() -> Iterator {
        let descriptor = self.descriptor
        let buffers = engine.buffers
        let chunkSize = self.chunkSize
        let position = Position(range: range)
        let producer = PooledProducer<DataRegions>(
            engine: engine, highWatermark: Self.readAhead, lowWatermark: Self.readAhead / 2
        ) { room throws(SandboxError) -> [DataRegions] in
            try position.next { offset, limit throws(SandboxError) in
                try descriptor.use { fd throws(SandboxError) in
                    try VectoredIO.readChunks(
                        from: fd, atOffset: offset, limit: limit, chunkSize: chunkSize,
                        count: room, pool: buffers, path: descriptor.path)
                }
            }
        }
        return Iterator(token: ConsumerToken(producer))
    }

    /// Reads chunks in order; at most one task may call ``next()`` at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let token: ConsumerToken<DataRegions>

        /// The next chunk, or `nil` at the end of the file (or of the range).
        ///
        /// - Throws: ``SandboxError/Code/io`` and the other read errors;
        ///   ``SandboxError/Code/interrupted`` when the task is cancelled.
        public mutating func next() async throws(SandboxError) -> DataRegions? {
            try await token.producer.next()
        }
    }

    /// Where the next chunk starts: touched only by the one producer job running at a time.
    final class Position: @unchecked Sendable {
        private var offset: Int64
        private let end: Int64

        init(range: Range<Int64>?) {
            offset = range?.lowerBound ?? 0
            end = range?.upperBound ?? .max
        }

        func next(
            _ read: (_ offset: Int64, _ limit: Int64) throws(SandboxError) -> [DataRegions]
        ) throws(SandboxError) -> [DataRegions] {
            guard offset < end else { return [] }
            let chunks = try read(offset, end - offset)
            offset += Int64(chunks.reduce(0) { $0 + $1.count })
            return chunks
        }
    }
}

extension ConfinedRoot {
    /// Reads the file at `path` from start to end as chunks (see ``FileChunks``).
    ///
    /// ```swift
    /// for try await chunk in try root.readChunks(of: path) {
    ///     try chunk.forEachRegion { bytes, _ in consume(bytes); return true }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: the regular file to read, relative to the root.
    ///   - chunkSize: the most bytes in a chunk; 1 MiB by default.
    ///   - range: the bytes to read; the whole file by default. A range past the end yields the
    ///     bytes that exist.
    ///   - engine: whose threads run the reads and whose buffer pool holds the chunks;
    ///     ``IOEngine/shared`` by default.
    /// - Throws: at once, the errors of ``openFile(forReadingAt:engine:)`` and
    ///   ``SandboxError/Code/invalidArgument`` for a chunk size below 1 or a negative range; while
    ///   iterating, read errors such as ``SandboxError/Code/io``.
    public func readChunks(
        of path: ContainerPath,
        chunkSize: Int = IOEngine.defaultChunkSize,
        range: Range<Int64>? = nil,
        engine: IOEngine = .shared
    ) throws(SandboxError) -> FileChunks {
        guard chunkSize > 0 else {
            throw .rule(
                .invalidArgument, "A chunk size of \(chunkSize) bytes cannot make progress; use 1 or more.",
                path: path.description)
        }
        if let range, range.lowerBound < 0 { throw .negative("offset", range.lowerBound, path: path.description) }
        let file = try openRegularFile(path)
        _ = posix_fadvise(file.rawValue, 0, 0, POSIX_FADV_SEQUENTIAL)  // a hint: its failure changes nothing
        return FileChunks(
            descriptor: SharedDescriptor(file, path: path.description), range: range, chunkSize: chunkSize,
            engine: engine)
    }
}

extension OpenFile {
    /// Reads the file behind this handle as chunks, with `pread` (the position is left alone).
    ///
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a chunk size below 1, a negative range,
    ///   or a handle not open for reading.
    public func readChunks(
        chunkSize: Int = IOEngine.defaultChunkSize, range: Range<Int64>? = nil, engine: IOEngine = .shared
    ) throws(SandboxError) -> FileChunks {
        guard chunkSize > 0 else {
            throw .rule(
                .invalidArgument, "A chunk size of \(chunkSize) bytes cannot make progress; use 1 or more.", path: path)
        }
        if let range, range.lowerBound < 0 { throw .negative("offset", range.lowerBound, path: path) }
        try requireAccess(writing: false)
        return FileChunks(descriptor: descriptor, range: range, chunkSize: chunkSize, engine: engine)
    }
}
