import Glibc
import SandboxCore
import SystemPackage
import Testing

/// `IOChannel.read(into:atOffset:)`: cached bytes on the caller's thread, the rest through the
/// engine, into the caller's buffer.
@Suite("I/O channels: reads into the caller's buffer")
struct ChannelBufferReadTests {

    @Test("cached bytes are read on the caller's thread, without an engine job")
    func cached() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(256 << 10, seed: 41)
        try fixture.hostWrite("f", bytes)
        let reader = try EngineReader(fixture)
        for offset in [0, 4096, 12_345, (256 << 10) - 4096] {
            #expect(try await reader.read(atOffset: offset) == Array(bytes[offset..<(offset + 4096)]))
        }
        #expect(reader.jobsStarted == 0)
    }

    @Test("bytes not in the page cache are read by the engine")
    func uncached() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(1 << 20, seed: 42)
        try fixture.hostWrite("f", bytes)
        let offset = 512 << 10
        let resident = try dropFromPageCache(fixture.host("f"), size: bytes.count, page: offset)
        let reader = try EngineReader(fixture)
        #expect(try await reader.read(atOffset: offset) == Array(bytes[offset..<(offset + 4096)]))
        // A file system that keeps every page (tmpfs) never makes the read wait: nothing to check.
        if !resident { #expect(reader.jobsStarted > 0) }
    }

    @Test("a read stops where the file ends: short at the end, 0 exactly there, refused past it")
    func endOfFile() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(10_000, seed: 43)
        try fixture.hostWrite("f", bytes)
        let channel = try fixture.root.openChannel(at: ioPath("f"))
        defer { channel.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try await channel.read(into: buffer, atOffset: 8000) == 2000)
        #expect(Array(buffer[0..<2000]) == Array(bytes[8000...]))
        #expect(try await channel.read(into: buffer, atOffset: 10_000) == 0)
        let pastEnd = await #expect(throws: SandboxError.self) {
            try await channel.read(into: buffer, atOffset: 10_001)
        }
        #expect(pastEnd?.code == .invalidArgument)
        #expect(pastEnd?.message.contains("past the end") == true)
        let negative = await #expect(throws: SandboxError.self) {
            try await channel.read(into: buffer, atOffset: -1)
        }
        #expect(negative?.code == .invalidArgument)
        #expect(try await channel.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<0]), atOffset: 0) == 0)
    }

    @Test("a buffer larger than one cached read is filled to the end, in parts")
    func largeBuffer() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(3 << 20, seed: 44)
        try fixture.hostWrite("f", bytes)
        let channel = try fixture.root.openChannel(at: ioPath("f"), chunkSize: 100_000)
        defer { channel.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try await channel.read(into: buffer, atOffset: 1000) == 1 << 20)
        #expect(Array(buffer) == Array(bytes[1000..<(1000 + (1 << 20))]))
        // Larger than what is left: everything up to the end.
        #expect(try await channel.read(into: buffer, atOffset: Int64(bytes.count - 300_000)) == 300_000)
        #expect(Array(buffer[0..<300_000]) == Array(bytes.suffix(300_000)))
    }

    @Test("a closed channel and a write-only channel refuse the read")
    func refused() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", patternBytes(8192, seed: 45))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let channel = try fixture.root.openChannel(at: ioPath("f"))
        channel.close()
        for count in [4096, 0] {
            let closed = await #expect(throws: SandboxError.self) {
                try await channel.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), atOffset: 0)
            }
            #expect(closed?.code == .closed)
        }
        let writer = try fixture.root.openChannel(at: ioPath("f"), access: .writing)
        defer { writer.close() }
        let writeOnly = await #expect(throws: SandboxError.self) {
            try await writer.read(into: buffer, atOffset: 0)
        }
        #expect(writeOnly?.code == .invalidArgument)
    }

    @Test("a stream channel fills the buffer from its position until the input ends")
    func stream() async throws {
        var ends: [CInt] = [0, 0]
        guard pipe(&ends) == 0 else { throw IOTestFailure("pipe: \(String(cString: strerror(errno)))") }
        let bytes = patternBytes(5000, seed: 46)
        let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        #expect(written == bytes.count)
        let channel = try IOChannel(takingOwnershipOf: FileDescriptor(rawValue: ends[0]), name: "pipe", kind: .stream)
        defer { channel.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        #expect(try await channel.read(into: buffer, atOffset: 123) == 4096)
        #expect(Array(buffer) == Array(bytes[0..<4096]))
        #expect(try await channel.read(into: buffer, atOffset: 0) == 904)
        #expect(Array(buffer[0..<904]) == Array(bytes[4096...]))
        #expect(try await channel.read(into: buffer, atOffset: 0) == 0)
    }
}

/// A channel on the fixture's file "f" with an engine of its own, whose jobs can be counted, and a
/// 4 KiB buffer to read into.
private final class EngineReader {
    let engine = IOEngine(threadCount: 1)
    let channel: IOChannel
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)

    init(_ fixture: IOFixture) throws {
        channel = try fixture.root.openChannel(at: ioPath("f"), engine: engine)
    }

    deinit {
        channel.close()
        engine.shutdown()
        buffer.deallocate()
    }

    /// Jobs the engine has started (running or finished): a job counts from the moment it runs.
    var jobsStarted: Int {
        let statistics = engine.statistics
        return statistics.completed + statistics.running
    }

    /// 4 KiB from `offset`, as `read(into:atOffset:)` returns them.
    func read(atOffset offset: Int) async throws -> [UInt8] {
        let count = try await channel.read(into: buffer, atOffset: Int64(offset))
        return Array(buffer[0..<count])
    }
}

/// Writes `path`'s dirty pages back and asks the kernel to drop them, then tells, with `mincore`
/// on a mapping (which does not fault pages in), whether the page at `page` is still resident.
private func dropFromPageCache(_ path: String, size: Int, page: Int) throws -> Bool {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw IOTestFailure("open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fdatasync(fd) == 0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0 else {
        throw IOTestFailure("dropping \(path) from the page cache: \(String(cString: strerror(errno)))")
    }
    guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else {
        throw IOTestFailure("mmap \(path): \(String(cString: strerror(errno)))")
    }
    defer { munmap(mapping, size) }
    let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
    var residency = [UInt8](repeating: 0, count: (size + pageSize - 1) / pageSize)
    guard mincore(mapping, size, &residency) == 0 else {
        throw IOTestFailure("mincore \(path): \(String(cString: strerror(errno)))")
    }
    return residency[page / pageSize] & 1 != 0
}
