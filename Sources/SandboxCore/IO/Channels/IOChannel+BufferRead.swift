import Glibc

extension IOChannel {
    /// Reads into `buffer` from `offset` (ignored on a ``Kind/stream`` channel) until it is full or
    /// the file ends, and returns the number of bytes read.
    ///
    /// The read for an app that keeps its own buffers: on a ``Kind/randomAccess`` channel, bytes
    /// the page cache holds (up to 128 KiB per call) are copied straight into `buffer` on the
    /// calling thread with `preadv2(RWF_NOWAIT)`, which never waits for the disk, so the call
    /// returns without suspending and without a buffer from the engine's pool. Whatever is not
    /// cached — and every read on a stream channel, or where the kernel refuses `RWF_NOWAIT` — goes
    /// to the engine's threads as ``read(fromOffset:length:)`` does, and is copied into `buffer`.
    /// `buffer` must stay valid until this returns; nothing writes to it afterwards. The call runs
    /// on the caller's executor (`nonisolated(nonsending)`): a cached read from an actor returns
    /// without a hop to the global executor and back.
    ///
    /// - Parameters:
    ///   - buffer: where the bytes go, from its start.
    ///   - offset: where to start reading, from the start of the file.
    /// - Returns: the bytes read: `buffer.count`, or fewer when the file ends first; 0 when
    ///   `offset` is exactly the file's size or `buffer` is empty.
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative offset, an offset past the end
    ///   of the file, or a channel not open for reading; ``SandboxError/Code/closed`` for a closed
    ///   channel; ``SandboxError/Code/interrupted`` when the channel is closed immediately or the
    ///   task is cancelled while the engine reads; read errors such as ``SandboxError/Code/io``.
    public nonisolated(nonsending) func read(
        into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64
    ) async throws(SandboxError)
        -> Int
    {
        if let cached = readCached(into: buffer, atOffset: offset) {
            // A read of 0 bytes is the end of the file, or past it: the engine's path tells which.
            if cached == buffer.count { return cached }
            if cached > 0 {
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[cached...])
                return try await cached + readThroughEngine(into: rest, atOffset: offset + Int64(cached))
            }
        }
        return try await readThroughEngine(into: buffer, atOffset: offset)
    }

    /// The engine's parts of ``read(fromOffset:length:)`` copied into `buffer`: the channel's checks,
    /// its ordering and its close semantics, with the engine writing only to its own pool buffers.
    private nonisolated(nonsending) func readThroughEngine(
        into buffer: UnsafeMutableRawBufferPointer, atOffset offset: Int64
    ) async throws(SandboxError) -> Int {
        let validation = readRefusal(offset: offset, length: Int64(buffer.count))
        if buffer.isEmpty {
            // Nothing to read, but the same checks as a read.
            if let validation { throw validation }
            if isClosed { throw .closed(path) }
            return 0
        }
        var filled = 0
        var parts = readThroughEngine(fromOffset: offset, length: Int64(buffer.count), validation: validation)
            .makeAsyncIterator()
        while let part = try await parts.next() {
            part.data.forEachRegion { bytes, start in
                let target = UnsafeMutableRawBufferPointer(rebasing: buffer[(filled + start)...])
                target.copyMemory(from: bytes)
                return true
            }
            filled += part.data.count
        }
        return filled
    }
}
