import Foundation
import SandboxCore
import Testing

@testable import SandboxBackup

/// zstd per blob (issue 30): round trips, the skip for data that does not compress, and every
/// hostile frame a damaged or forged pack can hold refused as `repository-damaged` naming the blob.
/// Serialized: the zip-bomb test measures the process's peak memory.
@Suite(.serialized) struct BlobCompressionTests {
    static let blob = "5f0e9c1d"

    /// Text-like bytes: words from a small vocabulary, picked by a fixed-seed generator.
    static func text(_ count: Int) -> [UInt8] {
        let words = ["container", "sandbox", "backup", "the", "of", "snapshot", "blob", "and", "a", "restore"]
        var state: UInt64 = 42
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes += words[Int(state >> 60) % words.count].utf8
            bytes.append(state & 0x700 == 0 ? 0x0A : 0x20)
        }
        return Array(bytes.prefix(count))
    }

    static func compressed(_ plain: [UInt8]) -> [UInt8]? {
        var compression = BlobCompression()
        return plain.withUnsafeBytes { compression.compress($0) }
    }

    static func decompressed(
        _ stored: [UInt8], length: Int, maximumLength: Int = BlobCompression.maximumLength
    ) -> Result<[UInt8], SandboxError> {
        var compression = BlobCompression()
        return stored.withUnsafeBytes { bytes in
            Result { () throws(SandboxError) in
                try compression.decompress(bytes, uncompressedLength: length, blob: blob, maximumLength: maximumLength)
            }
        }
    }

    /// Checks that `stored` is refused as a damaged blob, the message naming it and saying `why`.
    static func expectRefusal(
        _ stored: [UInt8], length: Int, saying why: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch decompressed(stored, length: length) {
        case .success(let plain):
            Issue.record("read \(plain.count) bytes instead of refusing (\(why))", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == .repositoryDamaged, "\(error)", sourceLocation: sourceLocation)
            #expect(error.path == blob, sourceLocation: sourceLocation)
            #expect(error.message.contains("'\(blob)'"), "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains(why), "\(error.message)", sourceLocation: sourceLocation)
            #expect(error.message.contains("check it, reading its data"), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [1 << 10, 1 << 20, 5 << 20 + 17])
    func textRoundTrips(count: Int) throws {
        let plain = Self.text(count)
        let stored = try #require(Self.compressed(plain))
        #expect(stored.count * 2 < plain.count, "text compresses to \(stored.count) of \(plain.count) bytes")
        #expect(try Self.decompressed(stored, length: plain.count).get() == plain)
    }

    /// A chunk of the largest size a repository can cut, and the largest length accepted.
    @Test func largestChunksRoundTrip() throws {
        let sample = Self.text(1 << 20)
        for count in [ChunkingParameters.legalMaximumSizes.upperBound, BlobCompression.maximumLength] {
            var plain = [UInt8]()
            plain.reserveCapacity(count)
            while plain.count < count { plain += sample.prefix(count - plain.count) }
            let stored = try #require(Self.compressed(plain))
            #expect(try Self.decompressed(stored, length: count).get() == plain)
        }
    }

    @Test func randomAndTinyDataAreStoredRaw() {
        #expect(Self.compressed(ChunkerTests.pseudoRandom(1 << 20, seed: 7)) == nil)
        #expect(Self.compressed([]) == nil)
        #expect(Self.compressed(Array("tiny".utf8)) == nil)
        // Half text, half random: saves about half, so compressed.
        let mixed = Self.text(1 << 19) + ChunkerTests.pseudoRandom(1 << 19, seed: 8)
        let stored = Self.compressed(mixed)
        #expect(stored.map { $0.count <= mixed.count - mixed.count / 16 } == true)
    }

    /// One context, reused for many blobs in turn (as a writer thread does), compressible or not.
    @Test func oneValueCompressesAndDecompressesManyBlobs() throws {
        var compression = BlobCompression()
        for round in 0..<6 {
            let plain = round % 2 == 0 ? Self.text(100_000 + round) : ChunkerTests.pseudoRandom(100_000, seed: 9)
            let stored = plain.withUnsafeBytes { compression.compress($0) }
            guard let stored else {
                #expect(round % 2 == 1)
                continue
            }
            let read = try stored.withUnsafeBytes { bytes throws(SandboxError) in
                try compression.decompress(bytes, uncompressedLength: plain.count, blob: Self.blob)
            }
            #expect(read == plain)
        }
    }

    /// The hand-made frames are well formed: read as they should be, so the refusals below are
    /// for the one thing each changes.
    @Test func handMadeFramesRead() throws {
        let payload = Self.text(300_000)
        let blocks: [HandMadeZstdFrame.Block] = [
            .raw(Array(payload[0..<131_072])), .raw(Array(payload[131_072..<262_144])),
            .raw(Array(payload[262_144...])), .repeated(0x41, count: 1000),
        ]
        let frame = HandMadeZstdFrame.bytes(declaring: 301_000, blocks: blocks)
        #expect(try Self.decompressed(frame, length: 301_000).get() == payload + [UInt8](repeating: 0x41, count: 1000))
        let empty = HandMadeZstdFrame.bytes(declaring: 0, blocks: [.raw([])])
        #expect(try Self.decompressed(empty, length: 0).get() == [])
    }

    @Test func lengthsOutOfBoundsAreRefusedBeforeAllocating() throws {
        let stored = try #require(Self.compressed(Self.text(4096)))
        // Int.max would trap if anything were allocated from it.
        for length in [BlobCompression.maximumLength + 1, Int.max, -1] {
            Self.expectRefusal(stored, length: length, saying: "uncompressed length of \(length) bytes, outside")
        }
        let result = Self.decompressed(stored, length: 4096, maximumLength: 4095)
        #expect(throws: SandboxError.self) { try result.get() }
    }

    @Test func framesDeclaringAnotherLengthAreRefused() throws {
        let plain = Self.text(10_000)
        let stored = try #require(Self.compressed(plain))
        Self.expectRefusal(stored, length: 10_001, saying: "declares 10000 bytes where its pack gives 10001")
        Self.expectRefusal(stored, length: 9_999, saying: "declares 10000 bytes where its pack gives 9999")
        let undeclared = HandMadeZstdFrame.bytes(declaring: nil, blocks: [.raw(Array(plain.prefix(100)))])
        Self.expectRefusal(undeclared, length: 100, saying: "does not declare its uncompressed length")
        // Declares 200 but holds 100: zstd checks what it wrote against the declaration.
        let short = HandMadeZstdFrame.bytes(declaring: 200, blocks: [.raw(Array(plain.prefix(100)))])
        Self.expectRefusal(short, length: 200, saying: "zstd cannot decode its frame")
    }

    @Test func framesNeedingADictionaryAreRefused() {
        let frame = HandMadeZstdFrame.bytes(declaring: 5, dictionary: 7, blocks: [.raw(Array("hello".utf8))])
        Self.expectRefusal(frame, length: 5, saying: "needs dictionary 7")
    }

    @Test func bytesThatAreNotOneFrameAreRefused() throws {
        let plain = Self.text(10_000)
        let stored = try #require(Self.compressed(plain))
        Self.expectRefusal([], length: 0, saying: "0 stored bytes are too few")
        Self.expectRefusal([0x28, 0xB5, 0x2F], length: 0, saying: "3 stored bytes are too few")
        Self.expectRefusal(Array(plain.prefix(100)), length: 100, saying: "does not start with a zstd frame")
        Self.expectRefusal(
            HandMadeZstdFrame.skippable(Array(plain.prefix(100))), length: 100, saying: "skippable zstd frame")
        Self.expectRefusal(
            HandMadeZstdFrame.skippable([1, 2]) + stored, length: plain.count, saying: "skippable zstd frame")
        Self.expectRefusal(stored + stored, length: plain.count, saying: "another zstd frame follows")
        Self.expectRefusal(
            stored + HandMadeZstdFrame.skippable([1, 2]), length: plain.count, saying: "another zstd frame follows")
        Self.expectRefusal(
            stored + [0, 1, 2], length: plain.count, saying: "3 bytes that are not part of its zstd frame")
    }

    @Test func truncatedAndDamagedFramesAreRefused() throws {
        let plain = Self.text(200_000)
        let stored = try #require(Self.compressed(plain))
        Self.expectRefusal(Array(stored.prefix(5)), length: plain.count, saying: "header is damaged or truncated")
        for cut in [1, 100, stored.count - 20] {
            Self.expectRefusal(Array(stored.dropLast(cut)), length: plain.count, saying: "truncated or its blocks")
        }
        // The first block's header given the reserved block type (3).
        var reserved = HandMadeZstdFrame.bytes(declaring: 100, blocks: [.raw(Array(plain.prefix(100)))])
        reserved[10] |= 0b110
        Self.expectRefusal(reserved, length: 100, saying: "blocks are damaged")
        // Compressed blocks with their contents overwritten.
        var damaged = stored
        for index in stride(from: 20, to: damaged.count - 8, by: 7) { damaged[index] ^= 0x5A }
        Self.expectRefusal(damaged, length: plain.count, saying: "' cannot be read: ")
    }

    /// A frame that declares 1 KiB and inflates to 1 GiB (8,192 blocks each repeating one byte
    /// 128 Ki times, 32 KiB in all): refused at the first block, never allocating more than 1 KiB
    /// — the process's peak resident memory (VmHWM, reset first) stays far below the 1 GiB.
    @Test func zipBombIsRefusedWithoutInflating() throws {
        let blocks = [HandMadeZstdFrame.Block](
            repeating: .repeated(0, count: HandMadeZstdFrame.maximumBlockSize), count: (1 << 30) >> 17)
        let bomb = HandMadeZstdFrame.bytes(declaring: 1024, blocks: blocks)
        #expect(bomb.count < 40 << 10)
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        let before = try Self.residentPeak()
        Self.expectRefusal(bomb, length: 1024, saying: "zstd cannot decode its frame")
        let grown = try Self.residentPeak() - before
        #expect(grown < 256 << 20, "the peak resident memory grew by \(grown >> 20) MiB")
    }

    /// The process's peak resident memory since the last reset (VmHWM), in bytes.
    static func residentPeak() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ")[1])) << 10
    }
}
