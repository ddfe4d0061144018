import Foundation
import SandboxCore
import Testing

@testable import SandboxBackup

/// A tree stored as it is encoded (``SplitStream``) is cut into the chunks the same bytes held
/// whole are (``BlobWriter/storeSplit(_:chunking:)``), however the pieces fall.
@Suite struct SplitStreamTests {
    @Test(arguments: [1, 7, 4096, 70_000, 1 << 20])
    func piecesGiveTheChunksOfTheWhole(largestPiece: Int) async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            // Small chunks, so 3 MiB makes many; text and random bytes, so cuts fall unevenly.
            let chunking = ChunkingParameters(minimumSize: 4 << 10, averageSize: 16 << 10, maximumSize: 64 << 10)
            var bytes = ChunkerTests.pseudoRandom(1 << 20, seed: 7)
            bytes += Array(String(repeating: "{\"path\":\"Documents/a\",\"size\":4096},", count: 30_000).utf8)
            bytes += ChunkerTests.pseudoRandom(1 << 20, seed: 8)
            let whole = bytes
            let (streamed, held) = try await OwnedThread.run(name: "split-stream-test") { () throws(SandboxError) in
                let writer = BlobWriter(repository: repository)
                var stream = SplitStream(writer: writer, chunking: chunking)
                var start = 0
                var size = 1
                while start < whole.count {
                    let end = min(whole.count, start + size)
                    try Array(whole[start..<end]).withBytes { (piece) throws(SandboxError) in try stream.append(piece) }
                    start = end
                    size = size % largestPiece + 1 + size / 3  // uneven pieces up to the largest
                }
                let streamed = try stream.finish()
                let held = try writer.storeSplit(whole, chunking: chunking)
                _ = try writer.drain()
                return (streamed, held)
            }
            #expect(streamed.count > 10)
            #expect(streamed == held)
        }
    }

    @Test func anEmptyStreamStoresNothing() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            let ids = try await OwnedThread.run(name: "split-stream-test") { () throws(SandboxError) in
                let writer = BlobWriter(repository: repository)
                let ids = try SplitStream(writer: writer, chunking: repository.config.chunking).finish()
                _ = try writer.drain()
                return ids
            }
            #expect(ids.isEmpty)
        }
    }
}
