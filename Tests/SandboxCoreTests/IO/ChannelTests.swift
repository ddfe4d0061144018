import Glibc
import SandboxCore
import Synchronization
import SystemPackage
import Testing

/// Records how many times a cleanup handler ran, and with what.
final class CleanupRecorder: Sendable {
    private let calls = Mutex<[String]>([])
    var count: Int { calls.withLock { $0.count } }
    var errors: [String] { calls.withLock { $0 } }
    var handler: @Sendable (SandboxError?) -> Void {
        { error in self.calls.withLock { $0.append(error.map { "\($0)" } ?? "ok") } }
    }
}

@Suite("I/O channels")
struct ChannelTests {
    @Test("random-access reads at offsets arrive in parts, the last one done")
    func randomReads() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(3 << 20 + 100, seed: 11)
        try fixture.hostWrite("f", bytes)
        let cleanup = CleanupRecorder()
        let channel = try fixture.root.openChannel(at: ioPath("f"), chunkSize: 1 << 20, cleanup: cleanup.handler)
        var parts: [ChannelReadPart] = []
        for try await part in channel.read(fromOffset: 1024, length: 2 << 20 + 5) { parts.append(part) }
        #expect(parts.map(\.data.count) == [1 << 20, 1 << 20, 5])
        #expect(parts.map(\.isDone) == [false, false, true])
        #expect(parts.reduce(DataRegions()) { $0 + $1.data }.bytes == Array(bytes[1024..<(1024 + (2 << 20) + 5)]))
        // The seed's example: the second 1024 bytes.
        #expect(try await channel.readAll(fromOffset: 1024, length: 1024).bytes == Array(bytes[1024..<2048]))
        // To the end: stops where the file does.
        #expect(try await channel.readAll(fromOffset: Int64(bytes.count) - 10).bytes == Array(bytes.suffix(10)))
        // Exactly at the end: one empty done part.
        var atEnd: [ChannelReadPart] = []
        for try await part in channel.read(fromOffset: Int64(bytes.count)) { atEnd.append(part) }
        #expect(atEnd.count == 1 && atEnd[0].isDone && atEnd[0].data.isEmpty)
        #expect(cleanup.count == 0)
        channel.close()
        await channel.waitUntilReleased()
        #expect(cleanup.errors == ["ok"])
    }

    @Test("many operations in flight on one channel, reads and writes")
    func manyInFlight() async throws {
        let fixture = try IOFixture()
        let channel = try fixture.root.openChannel(at: ioPath("f"), access: .readingAndWriting, chunkSize: 64 << 10)
        let blocks = (0..<64).map { patternBytes(100_000, seed: UInt64(100 + $0)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, block) in blocks.enumerated() {
                let writes = channel.write(DataRegions(block), atOffset: Int64(index) * 100_000)
                group.addTask { try await writes.completion() }
            }
            try await group.waitForAll()
        }
        let reads = (0..<64).map { channel.read(fromOffset: Int64($0) * 100_000, length: 100_000) }
        try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, read) in reads.enumerated() {
                group.addTask { (index, try await read.collect().bytes) }
            }
            for try await (index, bytes) in group {
                #expect(bytes == blocks[index])
            }
        }
        channel.close()
        await channel.waitUntilReleased()
        #expect(fixture.hostRead("f") == blocks.flatMap { $0 })
    }

    @Test("write progress parts count up to the whole")
    func writeProgress() async throws {
        let fixture = try IOFixture()
        let channel = try fixture.root.openChannel(
            at: ioPath("w"), access: .writing, options: .newFile(replaceExisting: true), chunkSize: 1000)
        var parts: [ChannelWritePart] = []
        for try await part in channel.write(DataRegions(patternBytes(2500, seed: 12)), atOffset: 0) {
            parts.append(part)
        }
        #expect(parts.map(\.totalWritten) == [1000, 2000, 2500])
        #expect(parts.map(\.remaining) == [1500, 500, 0])
        #expect(parts.map(\.isDone) == [false, false, true])
        #expect(try await channel.writeAll(DataRegions()) == 0)
        channel.close()
        #expect(fixture.hostRead("w") == patternBytes(2500, seed: 12))
    }

    @Test("a stream channel runs operations in order at the current position, over a pipe")
    func streamChannel() async throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let readEnd = try #require(DescriptorIdentity(of: fds[0]))
        let readCleanup = CleanupRecorder()
        let writeCleanup = CleanupRecorder()
        let reader = try IOChannel(
            takingOwnershipOf: FileDescriptor(rawValue: fds[0]), name: "pipe-in", kind: .stream,
            cleanup: readCleanup.handler)
        let writer = try IOChannel(
            takingOwnershipOf: FileDescriptor(rawValue: fds[1]), name: "pipe-out", kind: .stream,
            cleanup: writeCleanup.handler)
        // Issued in order, offsets ignored: the bytes arrive in issue order.
        let first = writer.write(DataRegions(Array("one ".utf8)), atOffset: 999)
        let second = writer.write(DataRegions(Array("two ".utf8)), atOffset: 5)
        let third = writer.write(DataRegions(Array("three".utf8)))
        try await first.completion()
        try await second.completion()
        try await third.completion()
        writer.close()
        await writer.waitUntilReleased()
        #expect(writeCleanup.count == 1)
        let text = try await reader.readAll()
        #expect(text.bytes == Array("one two three".utf8))
        reader.close()
        await reader.waitUntilReleased()
        #expect(readCleanup.count == 1)
        #expect(readEnd.isGone(from: fds[0]))
    }

    @Test("small reads of cached bytes are served without the engine; the rest still go to it")
    func cachedReads() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(1 << 20, seed: 17)
        try fixture.hostWrite("f", bytes)
        let engine = IOEngine(threadCount: 1, queueCapacity: 4)
        defer { engine.shutdown() }
        let channel = try fixture.root.openChannel(at: ioPath("f"), chunkSize: 4096, engine: engine)
        // Just written, so in the page cache: served at once, in one done part.
        let before = engine.statistics.completed
        for offset in stride(from: 0, to: bytes.count, by: 64 << 10) {
            let data = try await channel.readAll(fromOffset: Int64(offset), length: 4096)
            #expect(data.bytes == Array(bytes[offset..<(offset + 4096)]))
        }
        #expect(engine.statistics.completed == before, "cached 4 KiB reads went through the engine")
        // A read crossing the end, at the end or past it, and a large one: the engine's path.
        #expect(
            try await channel.readAll(fromOffset: Int64(bytes.count) - 100, length: 4096).bytes
                == Array(bytes.suffix(100)))
        await expectIOError(.invalidArgument) {
            try await channel.readAll(fromOffset: Int64(bytes.count) + 1, length: 4096)
        }
        #expect(try await channel.readAll(fromOffset: 0, length: 512 << 10).count == 512 << 10)
        #expect(engine.statistics.completed > before)
        channel.close()
        let refused = await expectIOError(.closed) { try await channel.readAll(fromOffset: 0, length: 10) }
        #expect(refused?.isClosedHandle == true)
    }

    @Test("closed channels refuse operations; close(immediately:) interrupts running ones; cleanup runs once")
    func closing() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", patternBytes(8 << 20, seed: 13))
        let cleanup = CleanupRecorder()
        let channel = try fixture.root.openChannel(at: ioPath("f"), chunkSize: 4096, cleanup: cleanup.handler)
        // An operation the consumer does not drain, running when the channel closes.
        let running = channel.read(fromOffset: 0)
        var iterator = running.makeAsyncIterator()
        #expect(try await iterator.next()?.data.count == 4096)
        channel.close(immediately: true)
        #expect(channel.isClosed)
        // Buffered parts are dropped; the consumer sees the interruption.
        await expectIOError(.interrupted) { while try await iterator.next() != nil {} }
        let refused = await expectIOError(.closed) { try await channel.readAll(fromOffset: 0, length: 10) }
        #expect(refused?.isClosedHandle == true)
        await expectIOError(.invalidArgument) { try await channel.writeAll(DataRegions([1])) }
        await channel.waitUntilReleased()
        channel.close()
        channel.close(immediately: true)
        #expect(cleanup.count == 1)
    }

    @Test("a graceful close lets running operations finish before releasing the descriptor")
    func gracefulClose() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(4 << 20, seed: 14)
        try fixture.hostWrite("f", bytes)
        let cleanup = CleanupRecorder()
        let channel = try fixture.root.openChannel(at: ioPath("f"), chunkSize: 1 << 20, cleanup: cleanup.handler)
        let read = channel.read()
        channel.close()
        #expect(try await read.collect().bytes == bytes)
        await channel.waitUntilReleased()
        #expect(cleanup.count == 1)
    }

    @Test("bad input on channels: negative and past-the-end offsets, wrong access, directories, escapes")
    func badInput() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        try fixture.hostMakeDirectory("d")
        let channel = try fixture.root.openChannel(at: ioPath("f"))
        await expectIOError(.invalidArgument) { try await channel.readAll(fromOffset: -1) }
        await expectIOError(.invalidArgument) { try await channel.readAll(fromOffset: 0, length: -5) }
        await expectIOError(.invalidArgument) { try await channel.readAll(fromOffset: 4) }
        await expectIOError(.invalidArgument) { try await channel.writeAll(DataRegions([1])) }  // read-only
        let writable = try fixture.root.openChannel(at: ioPath("g"), access: .writing)
        await expectIOError(.invalidArgument) { try await writable.writeAll(DataRegions([1]), atOffset: -2) }
        await expectIOError(.invalidArgument) { try await writable.readAll() }  // write-only
        expectIOError(.isADirectory) { try fixture.root.openChannel(at: ioPath("d")) }
        expectIOError(.escapesContainer) { try fixture.root.openChannel(at: ioPath("d/../../f")) }
        expectIOError(.invalidArgument) {
            try IOChannel(takingOwnershipOf: FileDescriptor(rawValue: 987_654), name: "bogus", kind: .stream)
        }
        channel.close()
        writable.close()
    }

    @Test("a dropped read sequence cancels its operation, so a graceful close still completes")
    func droppedRead() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", patternBytes(2 << 20, seed: 15))
        let cleanup = CleanupRecorder()
        let channel = try fixture.root.openChannel(
            at: ioPath("f"), kind: .stream, chunkSize: 4096, cleanup: cleanup.handler)
        do {
            let abandoned = channel.read()
            _ = abandoned
        }
        let next = channel.read(length: 10)
        #expect(try await next.collect().count == 10)
        channel.close()
        await channel.waitUntilReleased()
        #expect(cleanup.count == 1)
    }

    @Test("one-shot read and write on descriptors, without a channel")
    func oneShot() async throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let engine = IOEngine.shared
        try await engine.write(
            DataRegions(Array("abc".utf8)) + DataRegions(Array("def".utf8)), to: FileDescriptor(rawValue: fds[1]))
        close(fds[1])
        #expect(try await engine.read(from: FileDescriptor(rawValue: fds[0]), length: 4).bytes == Array("abcd".utf8))
        #expect(try await engine.read(from: FileDescriptor(rawValue: fds[0]), length: 100).bytes == Array("ef".utf8))
        #expect(try await engine.read(from: FileDescriptor(rawValue: fds[0]), length: 100).isEmpty)
        close(fds[0])
        await expectIOError(.invalidArgument) {
            try await engine.read(from: FileDescriptor(rawValue: fds[0]), length: -1)
        }
    }
}
