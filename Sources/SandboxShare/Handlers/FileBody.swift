import Hummingbird
import NIOCore
import Sandbox
import Synchronization

/// A response body streamed from an open file's contents (``FileContents``: decrypted for a
/// protected file): each chunk is read by the I/O engine straight into the buffer that is sent
/// (one copy out of the page cache, none in between; a protected file's segments are opened, then
/// copied in), and the next chunk is read while the last one is being written to the socket.
///
/// At most two chunks are in memory per transfer: the one being read and the one the socket is
/// sending. Handing a buffer to the response writer only schedules its write on the connection's
/// event loop, and the writer learns that the socket is full only once that write has run; when
/// the event loop's thread was slow to get a core, a fast reader queued dozens of chunks (a 1 GiB
/// download once peaked at 106 MiB). So after each chunk the body waits for the event loop to
/// have run the write, after which a full socket holds the next write back.
///
/// A transfer also cycles two buffers: the one the socket has finished with is usually the one the
/// next read fills, so glibc is not left caching freed chunks in each of its arenas.
struct FileBody: Sendable {
    /// The bytes read and sent at a time. Larger chunks mean fewer thread hops per byte, which is
    /// where a fast transfer spends its time: 128 KiB sent 1 GiB at 0.45× nginx's throughput,
    /// 2 MiB at about 1× (sandbox-share-benchmark, BENCHMARKS.md).
    static let chunkSize = 1 << 20

    let contents: FileContents
    /// The bytes to send, which the caller has checked lie within the contents.
    let range: Range<Int64>
    let path: SharePath
    /// The connection's event loop, where the writes run.
    let eventLoop: any EventLoop
    let engine: IOEngine = .shared
    /// The buffer the socket is done with, if any, for the next read to fill.
    private let spare = SpareBuffer()

    init(contents: FileContents, range: Range<Int64>, path: SharePath, eventLoop: any EventLoop) {
        self.contents = contents
        self.range = range
        self.path = path
        self.eventLoop = eventLoop
    }

    /// Writes the range to `writer`, then finishes it.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with the file system's failure, or a short read when the file
    ///   shrank after its length was sent; what `writer` throws. Either way the response is cut
    ///   short, which the `Content-Length` already sent tells the client.
    func write(to writer: inout any ResponseBodyWriter) async throws {
        var offset = range.lowerBound
        guard offset < range.upperBound else {
            try await writer.finish(nil)
            return
        }
        var pending = try await chunk(at: offset)
        while true {
            offset += Int64(pending.readableBytes)
            guard offset < range.upperBound else { break }
            let next = offset
            async let following = chunk(at: next)
            try await writer.write(pending)
            try await eventLoop.submit {}.get()  // the write has run: the writer knows if the socket is full
            spare.keep(consume pending)
            pending = try await following
        }
        try await writer.write(pending)
        try await writer.finish(nil)
    }

    /// The chunk that starts at `offset`, read on one of the engine's threads.
    private func chunk(at offset: Int64) async throws -> ByteBuffer {
        let count = Int(min(Int64(Self.chunkSize), range.upperBound - offset))
        let contents = self.contents
        let path = self.path
        let spare = self.spare
        return try await engine.run { () throws -> ByteBuffer in
            // `clear()` keeps the storage when nothing else holds it (the socket has written it),
            // and allocates a fresh one otherwise.
            var buffer = spare.take() ?? ByteBufferAllocator().buffer(capacity: count)
            buffer.clear()
            let read = try contents.read(count, at: offset, into: &buffer, path)
            guard read == count else { throw Self.shrank(path, at: offset + Int64(read)) }
            return buffer
        }
    }

    /// The error of a file that ended at `size` bytes while it was being sent.
    static func shrank(_ path: SharePath, at size: Int64) -> SandboxError {
        SandboxError(
            .internalError,
            "'\(path)' ended at \(size) bytes while it was being sent; it changed during the download: ask for it again.",
            path: path.description)
    }

    /// Reads up to `count` bytes at `offset` of `file` (`pread`, on the caller's thread) straight
    /// into `buffer`'s writable bytes.
    ///
    /// - Returns: the bytes read: fewer than `count` only at the end of the file.
    /// - Throws: ``/SandboxCore/SandboxError`` with the file system's failure.
    static func read(
        _ count: Int, at offset: Int64, of file: OpenFile, into buffer: inout ByteBuffer, _ path: SharePath
    ) throws(SandboxError) -> Int {
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target throws(SandboxError) -> Int in
            do throws(SandboxError) {
                return try file.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: target[0..<count]), atOffset: offset)
            } catch {
                throw .fileSystem(error, path: path, doing: "read")
            }
        }
    }
}

/// One buffer handed from the writing side to the reading side of a ``FileBody``, moved in and
/// out so that no other reference keeps it from being reused.
private final class SpareBuffer: Sendable {
    private let buffer = Mutex<ByteBuffer?>(nil)

    func keep(_ spare: ByteBuffer) {
        buffer.withLock { $0 = spare }
    }

    func take() -> ByteBuffer? {
        buffer.withLock { $0.take() }
    }
}
