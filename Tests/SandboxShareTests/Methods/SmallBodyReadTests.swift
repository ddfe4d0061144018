import Glibc
import NIOCore
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@testable import SandboxShare

/// A small body is read on the connection's event loop only when the page cache holds all of it
/// (`preadv2(RWF_NOWAIT)`); otherwise, or at the end of the file, on the I/O engine.
@Suite struct SmallBodyReadTests {
    static let contents = (0..<(16 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    /// A file just written is in the page cache: read whole without the engine.
    @Test func cachedBytesAreReadOnTheCallersThread() throws {
        let scratch = try ScratchDirectory.make(prefix: "share-small-read")
        defer { scratch.remove() }
        let file = try Self.open(in: scratch)
        defer { closeQuietly(file) }
        var buffer = ByteBufferAllocator().buffer(capacity: Self.contents.count)
        #expect(FileBody.readCached(Self.contents.count, at: 0, of: file, into: &buffer))
        #expect(Array(buffer.readableBytesView) == Self.contents)
    }

    /// A read that reaches past the end is not taken as complete: the engine reads the tail and
    /// says how much there was (the file shrank after it was measured).
    @Test func aShortReadGoesToTheEngine() async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-small-read")
        defer { scratch.remove() }
        let file = try Self.open(in: scratch)
        defer { closeQuietly(file) }
        let path = try SharePath(requestPath: "/small.bin")
        var buffer = ByteBufferAllocator().buffer(capacity: 4096)
        let offset = Int64(Self.contents.count - 100)
        #expect(!FileBody.readCached(4096, at: offset, of: file, into: &buffer))
        buffer.clear()
        let read = try await FileBody.readOnEngine(
            4096, at: offset, of: FileContents(plain: file, size: Int64(Self.contents.count)), into: buffer, path)
        #expect(Array(read.readableBytesView) == Array(Self.contents.suffix(100)))
    }

    /// After the kernel is told to drop the file's pages, the body still arrives whole: from the
    /// caller's thread if the file system kept them, from the engine otherwise.
    @Test func uncachedBytesAreReadOnTheEngine() async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-small-read")
        defer { scratch.remove() }
        let file = try Self.open(in: scratch)
        defer { closeQuietly(file) }
        try file.withUnsafeDescriptor { fd throws(SandboxError) in
            _ = fsync(fd.rawValue)
            _ = posix_fadvise(fd.rawValue, 0, 0, POSIX_FADV_DONTNEED)
        }
        let path = try SharePath(requestPath: "/small.bin")
        var buffer = ByteBufferAllocator().buffer(capacity: Self.contents.count)
        if !FileBody.readCached(Self.contents.count, at: 0, of: file, into: &buffer) {
            buffer.clear()
            buffer = try await FileBody.readOnEngine(
                Self.contents.count, at: 0, of: FileContents(plain: file, size: Int64(Self.contents.count)),
                into: buffer,
                path)
        }
        #expect(Array(buffer.readableBytesView) == Self.contents)
    }

    private static func open(in scratch: ScratchDirectory) throws -> OpenFile {
        try plantFile(Array("\(scratch.path)/small.bin".utf8), contents)
        return try ConfinedRoot(openingDirectoryAt: scratch.path).openFile(forReadingAt: ContainerPath("small.bin"))
    }
}
