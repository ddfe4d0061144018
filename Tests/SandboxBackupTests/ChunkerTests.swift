import SandboxCore
import Testing

@testable import SandboxBackup

@Suite struct ChunkerTests {
    /// Bytes from a fixed-seed generator, so cuts are reproducible.
    static func pseudoRandom(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var word = state ^ (state >> 29)
            for offset in 0..<min(8, count - index) {
                bytes[index + offset] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        return bytes
    }

    static func cuts(_ bytes: [UInt8], pieceSize: Int, parameters: ChunkingParameters = .standard) -> [Int] {
        var cdc = FastCDC(parameters: parameters)
        var cuts: [Int] = []
        var offset = 0
        bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(start + pieceSize, all.count)
                var piece = UnsafeRawBufferPointer(rebasing: all[start..<end])
                while !piece.isEmpty {
                    let (count, ends) = cdc.consume(piece)
                    offset += count
                    if ends { cuts.append(offset) }
                    piece = UnsafeRawBufferPointer(rebasing: piece[count...])
                }
                start = end
            }
        }
        return cuts
    }

    @Test func cutsDoNotDependOnHowBytesAreFed() {
        let bytes = Self.pseudoRandom(24 << 20, seed: 1)
        let whole = Self.cuts(bytes, pieceSize: bytes.count)
        #expect(whole == Self.cuts(bytes, pieceSize: 4096))
        #expect(whole == Self.cuts(bytes, pieceSize: 1_000_003))
    }

    @Test func chunkSizesStayWithinTheLimitsAndNearTheAverage() {
        let bytes = Self.pseudoRandom(64 << 20, seed: 2)
        let cuts = Self.cuts(bytes, pieceSize: 1 << 20)
        var previous = 0
        for cut in cuts {
            #expect(cut - previous >= 256 << 10)
            #expect(cut - previous <= 8 << 20)
            previous = cut
        }
        let average = Double(previous) / Double(cuts.count)
        #expect(average > Double(512 << 10) && average < Double(1 << 20))
    }

    @Test func aChangeInTheMiddleMovesOnlyNearbyCuts() {
        var bytes = Self.pseudoRandom(32 << 20, seed: 3)
        let before = Set(Self.cuts(bytes, pieceSize: 1 << 20))
        let middle = 16 << 20
        for index in middle..<(middle + (1 << 20)) { bytes[index] ^= 0x5A }
        let after = Set(Self.cuts(bytes, pieceSize: 1 << 20))
        // Every cut more than one maximum chunk past the change is unchanged.
        let far = before.filter { $0 > middle + (1 << 20) + (8 << 20) || $0 < middle }
        #expect(far.isSubset(of: after))
        // The bytes of chunks that are new after the change: what an incremental backup stores.
        let old = Set(zip([0] + before.sorted(), before.sorted()).map { "\($0)-\($1)" })
        let sortedAfter = after.sorted()
        var newBytes = 0
        for (start, end) in zip([0] + sortedAfter, sortedAfter)
        where !old.contains("\(start)-\(end)") || (end > middle && start < middle + (1 << 20)) {
            newBytes += end - start
        }
        #expect(newBytes < 4 << 20, "new bytes: \(newBytes)")
    }

    @Test func theMaximumCutsUniformData() {
        let bytes = [UInt8](repeating: 0, count: 20 << 20)
        let cuts = Self.cuts(bytes, pieceSize: 1 << 20)
        #expect(cuts == [8 << 20, 16 << 20])
    }
}
