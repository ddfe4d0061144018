import Glibc

extension IOChannel {
    /// Reads `length` bytes from `offset` (ignored on a ``Kind/stream`` channel), delivered in parts.
    ///
    /// The read starts now; a small read whose bytes are all in the page cache is done before this
    /// returns, without a trip to the engine's threads. It ends early, with a done part, where the file ends; a read at exactly
    /// the end delivers one empty done part.
    ///
    /// - Parameters:
    ///   - offset: where to start reading, from the start of the file; 0 by default.
    ///   - length: the most bytes to read; to the end of the file by default.
    /// - Returns: the parts; iterating them throws ``SandboxError/Code/invalidArgument`` for a
    ///   negative offset or length, an offset past the end, a channel not open for reading, or a
    ///   ``SandboxError/Code/closed`` for a closed channel; ``SandboxError/Code/interrupted`` when
    ///   the channel is closed immediately; read errors such as ``SandboxError/Code/io``.
    public func read(fromOffset offset: Int64 = 0, length: Int64 = .max) -> ChannelReads {
        let validation = readRefusal(offset: offset, length: length)
        if validation == nil, kind == .randomAccess, access.canRead, length <= Int64(Self.cachedReadLimit),
            let part = readCached(atOffset: offset, length: Int(length))
        {
            return ChannelReads(ready: part)
        }
        return readThroughEngine(fromOffset: offset, length: length, validation: validation)
    }

    /// Why a read of `length` bytes from `offset` cannot start: a negative offset or length, or a
    /// channel not open for reading; `nil` when it can.
    func readRefusal(offset: Int64, length: Int64) -> SandboxError? {
        if offset < 0 { return .negative("offset", offset, path: path) }
        if length < 0 { return .negative("length", length, path: path) }
        guard access.canRead else {
            return .rule(
                .invalidArgument, "The channel for '\(path)' was opened for writing only; it cannot read.", path: path)
        }
        return nil
    }

    /// ``read(fromOffset:length:)`` on the engine's threads, without trying the page cache first;
    /// `validation` fails the read before it starts.
    func readThroughEngine(fromOffset offset: Int64, length: Int64, validation: SandboxError?) -> ChannelReads {
        let path = self.path
        let cursor = Cursor(offset: offset, remaining: length)
        let descriptor = self.descriptor
        let buffers = engine.buffers
        let chunkSize = self.chunkSize
        let positional = kind == .randomAccess
        let id = makeOperationID()
        let producer = PooledProducer<ChannelReadPart>(
            engine: engine, highWatermark: 4, lowWatermark: 2,
            onTerminated: { [weak self] in self?.operationEnded(id) },
            step: { room throws(SandboxError) -> [ChannelReadPart] in
                guard !cursor.isDone else { return [] }
                let chunks = try descriptor.use { fd throws(SandboxError) -> [DataRegions] in
                    if positional {
                        let chunks = try VectoredIO.readChunks(
                            from: fd, atOffset: cursor.offset, limit: cursor.remaining,
                            chunkSize: chunkSize, count: room, pool: buffers, path: path)
                        if chunks.isEmpty && cursor.offset > 0 {
                            try OpenFile.checkNotPastEnd(cursor.offset, fd: fd, path: path)
                        }
                        return chunks
                    }
                    // A stream delivers what one read returns: a pipe may never fill the buffer.
                    let want = Int(Swift.min(Int64(chunkSize), cursor.remaining))
                    guard want > 0 else { return [] }
                    let storage = buffers.take(minimumCapacity: want)
                    let count = try syscall("read", path: path) { Glibc.read(fd, storage.base, want) }
                    return count == 0 ? [] : [DataRegions(storage: storage, count: count)]
                }
                let asked =
                    positional
                    ? Swift.min(Int64(chunkSize) * Int64(room), cursor.remaining)
                    : Swift.min(Int64(chunkSize), cursor.remaining)
                let count = chunks.reduce(0) { $0 + $1.count }
                cursor.advance(by: count)
                // Done: the length was read, or the file ended (a short positional read, or nothing).
                let isDone = count == 0 || cursor.remaining == 0 || (positional && Int64(count) < asked)
                if isDone { cursor.isDone = true }
                guard !chunks.isEmpty else { return [ChannelReadPart(data: DataRegions(), isDone: true)] }
                return chunks.enumerated().map { index, data in
                    ChannelReadPart(data: data, isDone: isDone && index == chunks.count - 1)
                }
            })
        let token = ConsumerToken(producer)
        if let validation {
            producer.cancel(validation)
        } else {
            issue(id, start: { producer.start() }, cancel: { producer.cancel($0) })
        }
        return ChannelReads(token: token)
    }

    /// Reads `length` bytes from `offset` and returns them in one value (regions, not copied).
    ///
    /// At most `maximumSize` bytes are held: a read that would return more is refused rather than
    /// allowed to fill memory (no more than `maximumSize + 1` bytes are read to find out).
    ///
    /// - Parameters:
    ///   - offset: where to start reading, from the start of the file; 0 by default.
    ///   - length: the most bytes to read; to the end of the file by default.
    ///   - maximumSize: refuse to return more than this many bytes (64 MiB by default, as
    ///     ``ConfinedRoot/readContents(of:maximumSize:)``).
    /// - Throws: ``SandboxError/Code/fileTooLarge`` when more than `maximumSize` bytes are there to
    ///   read (read the parts of ``read(fromOffset:length:)`` as they come instead);
    ///   ``SandboxError/Code/invalidArgument`` for a negative `maximumSize`; as the parts of
    ///   ``read(fromOffset:length:)``.
    public func readAll(
        fromOffset offset: Int64 = 0, length: Int64 = .max, maximumSize: Int = ConfinedRoot.defaultMaximumReadSize
    ) async throws(SandboxError) -> DataRegions {
        guard maximumSize >= 0 else { throw .negative("maximumSize", Int64(maximumSize), path: path) }
        // A small range all in the page cache: read on this thread, without the parts' sequence
        // (making and collecting it was about a tenth of a cached 4 KiB read's cost, `perf`).
        if kind == .randomAccess, access.canRead, offset >= 0, length >= 0, length <= Int64(maximumSize),
            let part = readCached(atOffset: offset, length: Int(Swift.min(length, Int64(Self.cachedReadLimit) + 1)))
        {
            return part.data
        }
        let limited = Int64(maximumSize) < length ? Int64(maximumSize) + 1 : length
        let data = try await read(fromOffset: offset, length: limited).collect()
        guard data.count <= maximumSize else {
            throw .rule(
                .fileTooLarge,
                "'\(path)' has more than the \(maximumSize)-byte limit of readAll to read from offset \(offset). "
                    + "Read the parts of read(fromOffset:length:) as they come, or raise maximumSize.",
                path: path)
        }
        return data
    }

    /// Writes `data` at `offset` (ignored on a ``Kind/stream`` channel), reporting progress in parts.
    ///
    /// The write starts now and runs to its end even if the returned sequence is not iterated.
    ///
    /// - Returns: the parts; iterating them throws ``SandboxError/Code/invalidArgument`` for a
    ///   negative offset or a channel not open for writing; ``SandboxError/Code/closed`` for a closed channel;
    ///   ``SandboxError/Code/interrupted`` when the channel is closed immediately;
    ///   ``SandboxError/Code/noSpace`` and other write errors.
    public func write(_ data: DataRegions, atOffset offset: Int64 = 0) -> ChannelWrites {
        let path = self.path
        let validation: SandboxError? =
            offset < 0
            ? .negative("offset", offset, path: path)
            : !access.canWrite
                ? .rule(
                    .invalidArgument, "The channel for '\(path)' was opened for reading only; it cannot write.",
                    path: path)
                : nil
        let cursor = Cursor(offset: offset, remaining: Int64(data.count))
        let descriptor = self.descriptor
        let chunkSize = self.chunkSize
        let positional = kind == .randomAccess
        let total = data.count
        let id = makeOperationID()
        let producer = PooledProducer<ChannelWritePart>(
            engine: engine, highWatermark: .max, lowWatermark: 0,
            onTerminated: { [weak self] in self?.operationEnded(id) },
            step: { _ throws(SandboxError) -> [ChannelWritePart] in
                guard !cursor.isDone else { return [] }
                let done = total - Int(cursor.remaining)
                let slice = data.slice(done..<Swift.min(total, done + chunkSize))
                let written =
                    slice.isEmpty
                    ? 0
                    : try descriptor.use { fd throws(SandboxError) in
                        try VectoredIO.writeOnce(slice, to: fd, atOffset: positional ? cursor.offset : nil, path: path)
                    }
                cursor.advance(by: written)
                cursor.isDone = cursor.remaining == 0
                return [
                    ChannelWritePart(
                        written: written, totalWritten: done + written, remaining: Int(cursor.remaining),
                        isDone: cursor.isDone)
                ]
            })
        if let validation {
            producer.cancel(validation)
        } else {
            issue(id, start: { producer.start() }, cancel: { producer.cancel($0) })
        }
        return ChannelWrites(producer: producer)
    }

    /// Writes all of `data` at `offset` and waits until it is written.
    ///
    /// - Returns: the number of bytes written.
    /// - Throws: as the parts of ``write(_:atOffset:)``.
    @discardableResult
    public func writeAll(_ data: DataRegions, atOffset offset: Int64 = 0) async throws(SandboxError) -> Int {
        try await write(data, atOffset: offset).completion()
    }

    /// Where an operation is: touched by one producer job at a time.
    final class Cursor: @unchecked Sendable {
        var offset: Int64
        var remaining: Int64
        var isDone = false

        init(offset: Int64, remaining: Int64) {
            self.offset = offset
            self.remaining = remaining
        }

        func advance(by count: Int) {
            offset += Int64(count)
            remaining -= Int64(count)
        }
    }
}
