import Glibc
import SandboxCore
import Synchronization
import SystemPackage
import Testing

@Suite("Streams and writers")
struct StreamTests {
    @Test("readChunks delivers the file in order, in chunks of the size asked", arguments: [1 << 20, 4096, 1000])
    func chunks(chunkSize: Int) async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(2 << 20 + 333, seed: 3)
        try fixture.hostWrite("f", bytes)
        var collected: [UInt8] = []
        var sizes: [Int] = []
        for try await chunk in try fixture.root.readChunks(of: ioPath("f"), chunkSize: chunkSize) {
            sizes.append(chunk.count)
            collected.append(contentsOf: chunk.bytes)
        }
        #expect(collected == bytes)
        #expect(sizes.dropLast().allSatisfy { $0 == chunkSize })
        #expect((sizes.last ?? 0) <= chunkSize)
    }

    @Test("readChunks of a range, of an empty file, and bad input")
    func chunkEdges() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(10_000, seed: 4)
        try fixture.hostWrite("f", bytes)
        try fixture.hostWrite("empty", [])
        try fixture.hostMakeDirectory("d")
        var ranged: [UInt8] = []
        for try await chunk in try fixture.root.readChunks(of: ioPath("f"), chunkSize: 3000, range: 100..<7100) {
            ranged += chunk.bytes
        }
        #expect(ranged == Array(bytes[100..<7100]))
        var count = 0
        for try await _ in try fixture.root.readChunks(of: ioPath("empty")) { count += 1 }
        #expect(count == 0)
        expectIOError(.isADirectory) { try fixture.root.readChunks(of: ioPath("d")) }
        expectIOError(.escapesContainer) { try fixture.root.readChunks(of: ioPath("d/../../f")) }
        expectIOError(.invalidArgument) { try fixture.root.readChunks(of: ioPath("f"), chunkSize: 0) }
        expectIOError(.invalidArgument) { try fixture.root.readChunks(of: ioPath("f"), range: -1..<5) }
    }

    @Test("a consumer that stops early leaves the read-ahead bounded and the buffers returned")
    func earlyStop() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", patternBytes(16 << 20, seed: 5))
        let engine = IOEngine(threadCount: 2, queueCapacity: 8)
        defer { engine.shutdown() }
        var iterator = try fixture.root.readChunks(of: ioPath("f"), engine: engine).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.count == 1 << 20)
        // Let the producer fill its read-ahead, then check it parked rather than read on.
        try await Task.sleep(for: .milliseconds(50))
        let completed = engine.statistics.completed
        try await Task.sleep(for: .milliseconds(50))
        #expect(engine.statistics.completed == completed)
        #expect(engine.statistics.running == 0)
    }

    @Test(
        "the writer appends with back-pressure and publishes atomically on finish",
        arguments: [WriteOptions.atomic, [.atomic, .durable], []])
    func writer(options: WriteOptions) async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        let writer = try fixture.root.openWriter(at: ioPath("f"), options: options)
        var expected: [UInt8] = []
        for index in 0..<24 {
            let chunk = patternBytes(700_000, seed: UInt64(index))
            expected += chunk
            try await writer.write(DataRegions(chunk))
            if options.contains(.atomic) {
                #expect(fixture.hostRead("f") == [1, 2, 3], "the old contents stay until finish")
            }
        }
        let size = try await writer.finish()
        #expect(size == Int64(expected.count))
        #expect(fixture.hostRead("f") == expected)
        #expect(fixture.hostList() == ["f"], "no temporary names remain")
        await expectIOError(.closed) { try await writer.write(DataRegions([1])) }
        await expectIOError(.closed) { try await writer.finish() }
    }

    @Test("a discarded writer, or a withWriter body that throws, publishes nothing")
    func discarded() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("keep", [7])
        let writer = try fixture.root.openWriter(at: ioPath("keep"))
        try await writer.write(DataRegions(patternBytes(3 << 20, seed: 6)))
        writer.discard()
        await expectIOError(.closed) { try await writer.finish() }
        #expect(fixture.hostRead("keep") == [7])
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await fixture.root.withWriter(at: ioPath("new")) { writer in
                try await writer.write(contentsOf: [1, 2, 3])
                throw Stop()
            }
        }
        #expect(fixture.hostList() == ["keep"])
        let written = try await fixture.root.withWriter(at: ioPath("new")) { writer in
            try await writer.write(contentsOf: [1, 2, 3])
            try await writer.write(DataRegions([4]) + DataRegions([5, 6]))
        }
        #expect(written == 6)
        #expect(fixture.hostRead("new") == [1, 2, 3, 4, 5, 6])
    }

    @Test("writer bad input: a directory, an escape, an existing file without overwriting")
    func writerBadInput() async throws {
        let fixture = try IOFixture()
        try fixture.hostMakeDirectory("d")
        try fixture.hostWrite("f", [1])
        expectIOError(.isADirectory) { try fixture.root.openWriter(at: ioPath("d")) }
        expectIOError(.escapesContainer) { try fixture.root.openWriter(at: ioPath("d/../../x")) }
        expectIOError(.notFound) { try fixture.root.openWriter(at: ioPath("missing/x")) }
        let writer = try fixture.root.openWriter(at: ioPath("f"), options: [.atomic, .withoutOverwriting])
        try await writer.write(contentsOf: [2])
        await expectIOError(.alreadyExists) { try await writer.finish() }
        #expect(fixture.hostRead("f") == [1])
        #expect(fixture.hostList() == ["d", "f"])
    }

    @Test("copying a file stream to a writer: readChunks into write(_:to:)")
    func streamCopy() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(5 << 20 + 1, seed: 7)
        try fixture.hostWrite("src", bytes)
        let size = try await fixture.root.writeContents(
            try fixture.root.readChunks(of: ioPath("src")), to: ioPath("dst"), options: [.atomic, .durable])
        #expect(size == Int64(bytes.count))
        #expect(fixture.hostRead("dst") == bytes)
    }

    @Test("writeContents(readingFrom:) streams a pipe into a file atomically")
    func fromDescriptor() async throws {
        let fixture = try IOFixture()
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let bytes = patternBytes(3 << 20, seed: 8)
        let writeEnd = fds[1]
        let fed = Mutex<SandboxError?>(nil)
        let feeder = PeerThread {
            let writer = OpenFile(takingOwnershipOf: FileDescriptor(rawValue: writeEnd), access: .writing, name: "pipe")
            do throws(SandboxError) {
                try writer.write(DataRegions(bytes))
                try writer.close()
            } catch {
                fed.withLock { $0 = error }
            }
        }
        let copied = try fixture.root.writeContents(readingFrom: FileDescriptor(rawValue: fds[0]), to: ioPath("piped"))
        close(fds[0])
        await feeder.join()
        #expect(fed.withLock { $0 } == nil)
        #expect(copied == Int64(bytes.count))
        #expect(fixture.hostRead("piped") == bytes)
    }

    @Test("whole-file async read and write, with the size limit")
    func wholeFile() async throws {
        let fixture = try IOFixture()
        let data = DataRegions(patternBytes(1 << 20, seed: 9)) + DataRegions(patternBytes(5, seed: 10))
        try await fixture.root.writeContents(data, to: ioPath("w"), engine: .shared)
        #expect(try await fixture.root.readContents(of: ioPath("w"), engine: .shared) == data.bytes)
        await expectIOError(.fileTooLarge) {
            try await fixture.root.readContents(of: ioPath("w"), maximumSize: 1 << 20, engine: .shared)
        }
        try fixture.hostMakeDirectory("d")
        await expectIOError(.isADirectory) { try await fixture.root.readContents(of: ioPath("d"), engine: .shared) }
        await expectIOError(.escapesContainer) {
            try await fixture.root.readContents(of: ioPath("d/../.."), engine: .shared)
        }
        // Large enough for a mapped, pre-faulted buffer (ByteStorage.mappingThreshold).
        let large = DataRegions(patternBytes(9 << 20 | 123, seed: 12))
        try await fixture.root.writeContents(large, to: ioPath("large"), engine: .shared)
        #expect(try await fixture.root.readContents(of: ioPath("large"), engine: .shared) == large.bytes)
    }

    @Test("interrupted-write names are recognized and removed; other names are kept")
    func recovery() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1])
        try fixture.hostWrite(".f.sandbox-3k9x2", [2])
        try fixture.hostWrite(".f.sandbox-", [3])
        try fixture.hostWrite(".hidden", [4])
        try fixture.hostWrite("f.sandbox-abc", [5])
        #expect(ConfinedRoot.isInterruptedWriteName(".f.sandbox-3k9x2"))
        #expect(ConfinedRoot.isInterruptedWriteName(".a.b.sandbox-z0"))
        #expect(!ConfinedRoot.isInterruptedWriteName(".f.sandbox-"))
        #expect(!ConfinedRoot.isInterruptedWriteName(".f.sandbox-ABC"))
        #expect(!ConfinedRoot.isInterruptedWriteName("f.sandbox-abc"))
        #expect(try fixture.root.removeInterruptedWrites() == 0, "too recent")
        #expect(try fixture.root.removeInterruptedWrites(olderThan: .zero) == 1)
        #expect(fixture.hostList() == [".f.sandbox-", ".hidden", "f", "f.sandbox-abc"])
    }
}
