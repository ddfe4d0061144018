import Glibc
import SandboxCore
import SystemPackage
import Testing

@Suite("Whole reads are bounded")
struct WholeReadLimitTests {
    @Test("readAll refuses more than maximumSize bytes with fileTooLarge naming the file, and returns up to it")
    func channelReadAllLimit() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(10_000, seed: 41)
        try fixture.hostWrite("f", bytes)
        let channel = try fixture.root.openChannel(at: ioPath("f"))
        let refused = await expectIOError(.fileTooLarge) { try await channel.readAll(maximumSize: 9_999) }
        #expect(refused?.message.contains("f") == true)
        #expect(refused?.message.contains("9999-byte limit") == true)
        #expect(try await channel.readAll(maximumSize: 10_000).bytes == bytes)
        // A length within the limit is not refused, whatever the file's size.
        let within = try await channel.readAll(fromOffset: 100, length: 50, maximumSize: 50)
        #expect(within.bytes == Array(bytes[100..<150]))
        #expect(try await channel.readAll().bytes == bytes)
        await expectIOError(.invalidArgument) { try await channel.readAll(maximumSize: -1) }
        channel.close()
        await channel.waitUntilReleased()
    }

    @Test("readAll on a stream stops one byte past maximumSize rather than reading to its end")
    func streamReadAllLimit() async throws {
        var fds: [CInt] = [0, 0]
        try #require(pipe(&fds) == 0)
        let reader = try IOChannel(takingOwnershipOf: FileDescriptor(rawValue: fds[0]), name: "pipe-in", kind: .stream)
        // More than the limit, and the writer keeps its end open: an unbounded read would wait for ever.
        let written = Array(repeating: UInt8(7), count: 4096)
        #expect(written.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == 4096)
        await expectIOError(.fileTooLarge) { try await reader.readAll(maximumSize: 100) }
        close(fds[1])
        reader.close()
        await reader.waitUntilReleased()
    }

    @Test("the sync and async whole-file calls agree: names, results, limit, default options")
    func syncAndAsyncAgree() async throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(70_000, seed: 42)
        try fixture.root.writeContents(bytes, to: ioPath("sync"))
        try await fixture.root.writeContents(DataRegions(bytes), to: ioPath("async"), engine: .shared)
        let sync: [UInt8] = try fixture.root.readContents(of: ioPath("async"))
        let async: [UInt8] = try await fixture.root.readContents(of: ioPath("sync"), engine: .shared)
        #expect(sync == bytes)
        #expect(async == bytes)
        expectIOError(.fileTooLarge) { try fixture.root.readContents(of: ioPath("sync"), maximumSize: 69_999) }
        await expectIOError(.fileTooLarge) {
            try await fixture.root.readContents(of: ioPath("sync"), maximumSize: 69_999, engine: .shared)
        }
        #expect(try fixture.root.readContents(of: ioPath("sync"), maximumSize: 70_000) == bytes)
    }
}
