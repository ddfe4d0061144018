import Glibc
import SandboxCore
import Testing

@Suite("Memory-mapped files")
struct MappingTests {
    @Test("read-only mappings of the whole file and of unaligned ranges")
    func readOnly() throws {
        let fixture = try IOFixture()
        let bytes = patternBytes(3 * 4096 + 123, seed: 21)
        try fixture.hostWrite("f", bytes)
        let sum = try fixture.root.withMappedFile(at: ioPath("f"), advice: .sequential) { mapped in
            mapped.reduce(0) { $0 &+ Int($1) }
        }
        #expect(sum == bytes.reduce(0) { $0 &+ Int($1) })
        let mapped = try fixture.root.mapFile(at: ioPath("f"), range: 5000..<9000, advice: .random)
        #expect(mapped.count == 4000)
        #expect(mapped.offset == 5000)
        #expect(mapped.withUnsafeBytes { Array($0) } == Array(bytes[5000..<9000]))
        try mapped.advise(.willNeed)
        try mapped.advise(.dontNeed)
        #expect(mapped.withUnsafeBytes { $0[0] } == bytes[5000])
        expectIOError(.readOnly) { try mapped.withUnsafeMutableBytes { $0[0] = 1 } }
        mapped.unmap()
        // An empty file or range maps to no bytes.
        try fixture.hostWrite("empty", [])
        #expect(try fixture.root.withMappedFile(at: ioPath("empty")) { $0.count } == 0)
    }

    @Test("read-write mappings change the file")
    func readWrite() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [UInt8](repeating: 0, count: 10_000))
        let mapped = try fixture.root.mapFile(at: ioPath("f"), range: 8000..<8004, access: .readWrite)
        try mapped.withUnsafeMutableBytes { bytes in
            for index in bytes.indices { bytes[index] = UInt8(index + 1) }
        }
        try mapped.synchronize()
        mapped.unmap()
        #expect(fixture.hostRead("f").map { Array($0[7999..<8005]) } == [0, 1, 2, 3, 4, 0])
    }

    @Test("bad input: ranges past the end or negative, directories, escapes")
    func badInput() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        try fixture.hostMakeDirectory("d")
        expectIOError(.invalidArgument) { _ = try fixture.root.mapFile(at: ioPath("f"), range: 0..<4) }
        expectIOError(.invalidArgument) { _ = try fixture.root.mapFile(at: ioPath("f"), range: -1..<2) }
        expectIOError(.isADirectory) { _ = try fixture.root.mapFile(at: ioPath("d")) }
        expectIOError(.escapesContainer) { _ = try fixture.root.mapFile(at: ioPath("d/../../f")) }
        expectIOError(.notFound) { _ = try fixture.root.mapFile(at: ioPath("missing")) }
    }
}
