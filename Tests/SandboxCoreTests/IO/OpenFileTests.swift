import Glibc
import SandboxCore
import SystemPackage
import Testing

@Suite("File handles")
struct OpenFileTests {
    @Test("pread, read, readv, seek and size round-trip a file written through the host")
    func reading() throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(3 << 20 + 17, seed: 1)
        try fixture.hostWrite("f", bytes)
        let file = try fixture.root.openFile(forReadingAt: ioPath("f"))
        #expect(try file.size() == Int64(bytes.count))
        #expect(try file.read(upToCount: 10, atOffset: 5).bytes == Array(bytes[5..<15]))
        #expect(try file.currentOffset() == 0)  // pread leaves the position alone
        #expect(try file.read(upToCount: 100).bytes == Array(bytes[0..<100]))
        #expect(try file.currentOffset() == 100)
        try file.seek(to: -7, from: .end)
        #expect(try file.read(upToCount: 100).bytes == Array(bytes.suffix(7)))
        #expect(try file.read(upToCount: 100).isEmpty)  // at the end
        // A multi-chunk read is made of pooled regions and equals the file.
        let whole = try file.read(upToCount: bytes.count + 10, atOffset: 0)
        #expect(whole.count == bytes.count)
        #expect(whole.regions.count > 1)
        #expect(whole.bytes == bytes)
        // readv scatters into several buffers.
        var first = [UInt8](repeating: 0, count: 3)
        var second = [UInt8](repeating: 0, count: 5)
        let read = try first.withUnsafeMutableBytes { a in
            try second.withUnsafeMutableBytes { b in try file.read(into: [a, b], atOffset: 2) }
        }
        #expect(read == 8)
        #expect(first + second == Array(bytes[2..<10]))
        try file.seek(to: 0)
        #expect(try file.readToEnd(maximumSize: bytes.count).bytes == bytes)
        try file.close()
    }

    @Test("pwrite, write, writev, truncate, fallocate and sync on a writing handle")
    func writing() throws {
        let fixture = try IOFixture()
        let file = try fixture.root.openFile(
            forReadingAndWritingAt: ioPath("w"), options: .newFile(replaceExisting: false))
        try file.write(DataRegions([1, 2, 3]) + DataRegions([4, 5]))  // writev
        try file.write(contentsOf: [9, 9], atOffset: 1)  // pwrite
        #expect(try file.currentOffset() == 5)
        try [UInt8](arrayLiteral: 7, 8).withUnsafeBytes { try file.write($0) }
        #expect(fixture.hostRead("w") == [1, 9, 9, 4, 5, 7, 8])
        try file.write(DataRegions([0xFF]), atOffset: 10)  // past the end: a hole, then the byte
        #expect(try file.size() == 11)
        #expect(try file.read(upToCount: 4, atOffset: 7).bytes == [0, 0, 0, 0xFF])
        try file.truncate(to: 3)
        #expect(fixture.hostRead("w") == [1, 9, 9])
        try file.allocate(1 << 20, keepingSize: true)
        #expect(try file.size() == 3)
        try file.allocate(4096, atOffset: 0)
        #expect(try file.size() == 4096)
        try file.synchronize()
        try file.synchronize(.data)
        try file.close()
        // Exclusive creation refuses the existing file.
        expectIOError(.alreadyExists) {
            try fixture.root.openFile(forWritingAt: ioPath("w"), options: .newFile(replaceExisting: false))
        }
        // Appending.
        let appender = try fixture.root.openFile(forWritingAt: ioPath("w"), options: .appendToFile)
        try appender.truncate(to: 1)
        try appender.write(contentsOf: [42])
        try appender.close()
        #expect(fixture.hostRead("w") == [1, 42])
    }

    @Test("bad input: negative and past-the-end offsets, directories, escapes, wrong access")
    func badInput() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        try fixture.hostMakeDirectory("d")
        let file = try fixture.root.openFile(forReadingAt: ioPath("f"))
        expectIOError(.invalidArgument) { try file.read(upToCount: 1, atOffset: -1) }
        expectIOError(.invalidArgument) { try file.read(upToCount: -1) }
        expectIOError(.invalidArgument) { try file.read(upToCount: 1, atOffset: 4) }  // past the end
        #expect(try file.read(upToCount: 1, atOffset: 3).isEmpty)  // exactly at the end
        expectIOError(.invalidArgument) { try file.seek(to: -1) }
        expectIOError(.invalidArgument) { try file.write(DataRegions([1])) }  // opened for reading
        expectIOError(.invalidArgument) { try file.truncate(to: 0) }
        expectIOError(.fileTooLarge) { try file.readToEnd(maximumSize: 2) }
        expectIOError(.isADirectory) { try fixture.root.openFile(forReadingAt: ioPath("d")) }
        expectIOError(.isADirectory) { try fixture.root.openFile(forWritingAt: ioPath("d")) }
        expectIOError(.escapesContainer) { try fixture.root.openFile(forReadingAt: ioPath("d/../../x")) }
        expectIOError(.escapesContainer) { try ContainerPath("../f") }
        expectIOError(.notFound) { try fixture.root.openFile(forReadingAt: ioPath("missing")) }
        expectIOError(.notFound) {
            try fixture.root.openFile(forWritingAt: ioPath("f2"), options: .modifyFile(createIfNecessary: false))
        }
        #expect(symlink("/etc/passwd", fixture.host("out")) == 0)
        expectIOError(.escapesContainer) { try fixture.root.openFile(forReadingAt: ioPath("out")) }
    }

    @Test("close happens exactly once; calls after it throw a closed-handle error")
    func closeOnce() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        let file = try fixture.root.openFile(forReadingAt: ioPath("f"))
        let fd = try file.withUnsafeDescriptor { $0.rawValue }
        let identity = try #require(DescriptorIdentity(of: fd))
        #expect(!file.isClosed)
        try file.close()
        #expect(file.isClosed)
        try file.close()  // again: nothing
        #expect(identity.isGone(from: fd))
        let error = expectIOError(.closed) { try file.read(upToCount: 1) }
        #expect(error?.isClosedHandle == true)
        #expect(error?.message.contains("was closed") == true)
    }

    @Test("a handle that goes away closes its descriptor")
    func closesOnDeinit() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1])
        var fd: CInt = -1
        var identity: DescriptorIdentity?
        do {
            let file = try fixture.root.openFile(forReadingAt: ioPath("f"))
            fd = try file.withUnsafeDescriptor { $0.rawValue }
            identity = DescriptorIdentity(of: fd)
        }
        let opened = try #require(identity)
        #expect(opened.isGone(from: fd))
    }

    @Test("a close while another thread reads waits for the read; the descriptor is never reused under it")
    func closeDuringRead() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(8 << 20, seed: 2)
        try fixture.hostWrite("big", bytes)
        let file = try fixture.root.openFile(forReadingAt: ioPath("big"))
        let engine = IOEngine(threadCount: 4, queueCapacity: 16)
        defer { engine.shutdown() }
        // Many reads race a close: each either returns the right bytes or throws the closed error.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let offset = Int64(index) * 200_000
                    do {
                        let data = try await engine.run { try file.read(upToCount: 100_000, atOffset: offset) }
                        #expect(data.bytes == Array(bytes[Int(offset)..<Int(offset) + 100_000]))
                    } catch let error as SandboxError {
                        #expect(error.isClosedHandle, "\(error)")
                    }
                }
            }
            group.addTask { try await engine.run { try file.close() } }
            try await group.waitForAll()
        }
        #expect(file.isClosed)
    }

    @Test("adopting a descriptor: the handle owns and closes it")
    func adopting() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let readEnd = try #require(DescriptorIdentity(of: fds[0]))
        let reader = OpenFile(takingOwnershipOf: FileDescriptor(rawValue: fds[0]), access: .reading, name: "pipe")
        let writer = OpenFile(takingOwnershipOf: FileDescriptor(rawValue: fds[1]), access: .writing, name: "pipe")
        try writer.write(DataRegions(Array("hello".utf8)))
        try writer.close()
        #expect(try reader.readToEnd().bytes == Array("hello".utf8))
        try reader.close()
        #expect(readEnd.isGone(from: fds[0]))
    }
}
