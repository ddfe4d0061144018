import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Packs damaged or forged in the repository: each is refused as `repository-damaged` naming the
/// pack, a restore changes nothing in the container, and `check` says which pack and which files.
@Suite struct PackHostileTests {
    /// Two files of equal size (so equal-length blobs) in one data pack, and their tree.
    static func backUp(_ fixture: BackupFixture) async throws -> (Repository, Snapshot, IndexedPack) {
        try fixture.write("Documents/one.bin", ChunkerTests.pseudoRandom(5_000, seed: 1))
        try fixture.write("Documents/two.bin", ChunkerTests.pseudoRandom(5_000, seed: 2))
        let repository = try fixture.repository()
        let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
        let packs = try PackTests.packs(repository)
        let data = try #require(packs.first { $0.blobs.first?.entry.kind == .data })
        #expect(data.blobs.count == 2)
        return (repository, try await repository.snapshot(matching: report.snapshot), data)
    }

    /// Rewrites the pack file in place with `change` applied to its bytes.
    static func edit(_ pack: IndexedPack, in fixture: BackupFixture, _ change: (inout [UInt8]) -> Void) throws {
        let path = PackTests.path(of: pack.id, in: fixture)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Restoring fails with `repository-damaged` and leaves the container as it was.
    static func expectRestoreRefused(
        _ fixture: BackupFixture, _ repository: Repository, _ snapshot: Snapshot, naming pack: IndexedPack
    ) async throws {
        try fixture.write("Documents/one.bin", Array("live data".utf8))
        let live = try TreeDescription(fixture.container.homeDirectory)
        let error = await asyncFailure {
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
        }
        #expect(error?.code == .repositoryDamaged, "\(String(describing: error))")
        #expect(error?.message.contains(pack.id.hex) == true, "\(String(describing: error))")
        #expect(try TreeDescription(fixture.container.homeDirectory) == live)
    }

    @Test func aTruncatedPackIsFoundByCheckAndRefusedByRestore() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, pack) = try await Self.backUp(fixture)
            try Self.edit(pack, in: fixture) { $0.removeLast(4_000) }
            let check = try await Checker.check(repository, readingData: false)
            #expect(
                check.problems.contains { $0.contains(pack.id.hex) && $0.contains("truncated") }, "\(check.problems)")
            #expect(check.affectedFiles.contains { $0.hasSuffix(":Documents/two.bin") }, "\(check.affectedFiles)")
            try await Self.expectRestoreRefused(fixture, repository, snapshot, naming: pack)
        }
    }

    @Test func aHeaderLengthThatLiesIsRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, _, pack) = try await Self.backUp(fixture)
            try Self.edit(pack, in: fixture) { bytes in
                bytes.replaceSubrange((bytes.count - 4)..., with: [0xff, 0xff, 0xff, 0x7f])
            }
            let check = try await Checker.check(repository, readingData: true)
            #expect(
                check.problems.contains {
                    $0.contains("pack 'data/") && $0.contains(pack.id.hex) && $0.contains("trailer")
                },
                "\(check.problems)")
            #expect(check.affectedFiles.count == 2, "\(check.affectedFiles)")
        }
    }

    @Test func overlappingBlobRangesAreRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, _, pack) = try await Self.backUp(fixture)
            // The header (unencrypted: plaintext) gives the first blob 1 byte more: it runs into the next.
            try Self.edit(pack, in: fixture) { bytes in
                let headerStart = bytes.count - 4 - 2 * PackHeader.entrySize
                bytes[headerStart + 2] &+= 1
            }
            let check = try await Checker.check(repository, readingData: true)
            #expect(
                check.problems.contains { $0.contains(pack.id.hex) && $0.contains("runs 5000 bytes, past the") },
                "\(check.problems)")
        }
    }

    @Test func blobsSwappedInAPackAreRefusedByRestoreAndNamedByCheck() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, pack) = try await Self.backUp(fixture)
            let first = pack.blobs[0]
            let second = pack.blobs[1]
            #expect(first.entry.length == second.entry.length)
            try Self.edit(pack, in: fixture) { bytes in
                let a = Int(first.offset)
                let b = Int(second.offset)
                let length = Int(first.entry.length)
                let copy = Array(bytes[a..<(a + length)])
                bytes.replaceSubrange(a..<(a + length), with: bytes[b..<(b + length)])
                bytes.replaceSubrange(b..<(b + length), with: copy)
            }
            try await Self.expectRestoreRefused(fixture, repository, snapshot, naming: pack)
            let check = try await Checker.check(repository, readingData: true)
            #expect(!check.isHealthy)
            #expect(
                Set(check.affectedFiles.map { $0.split(separator: ":").last ?? "" }) == [
                    "Documents/one.bin", "Documents/two.bin",
                ])
        }
    }

    @Test func headersWithHugeCountsOrLengthsAreRefusedBeforeAllocating() throws {
        // A trailer claiming a header past 64 MiB.
        var pack = [UInt8](repeating: 0, count: 100)
        LittleEndian.append(UInt32(64 << 20) + 1, to: &pack)
        let tooLong = failure { () throws(SandboxError) in
            _ = try PackHeader.parse(pack, cipher: .plain, name: "data/ab/pack")
        }
        #expect(tooLong?.code == .repositoryDamaged && tooLong?.path == "data/ab/pack")
        // A header of 1,000,001 entries.
        let count = failure { () throws(SandboxError) in
            _ = try PackHeader.decode(
                [UInt8](repeating: 0, count: (PackHeader.maximumEntries + 1) * PackHeader.entrySize),
                name: "data/ab/pack")
        }
        #expect(count?.code == .repositoryDamaged && count?.message.contains("1000000") == true)
        // An index record claiming 2^32 − 1 packs in a few bytes.
        let index = failure { () throws(SandboxError) in
            _ = try IndexFile.decode(IndexFile.magic + [0xff, 0xff, 0xff, 0xff, 0, 0], name: "index/x")
        }
        #expect(index?.code == .repositoryDamaged && index?.path == "index/x")
        // Compression 1 (zstd) is read; an unknown compression is refused, in a header and in an index.
        let key = try #require(BlobKey(hex: String(repeating: "c", count: 64)))
        var header = PackHeader.encode([
            PackEntry(kind: .data, compression: PackEntry.zstd, length: 1, uncompressedLength: 1, id: key)
        ])
        #expect(try PackHeader.decode(header, name: "data/cc/p").map(\.compression) == [PackEntry.zstd])
        header[1] = 2
        let unknown = failure { () throws(SandboxError) in _ = try PackHeader.decode(header, name: "data/cc/p") }
        #expect(unknown?.code == .repositoryDamaged && unknown?.path == "data/cc/p", "\(String(describing: unknown))")
        #expect(unknown?.message.contains("compressed with method 2") == true)
        var listed = IndexContents()
        listed.packs = [
            IndexedPack(
                id: key,
                blobs: [
                    IndexedBlob(
                        entry: PackEntry(kind: .tree, compression: 2, length: 1, uncompressedLength: 1, id: key),
                        offset: 0)
                ])
        ]
        let unknownInIndex = failure { () throws(SandboxError) in
            _ = try IndexFile.decode(IndexFile.encode(listed), name: "index/y")
        }
        #expect(unknownInIndex?.code == .repositoryDamaged && unknownInIndex?.path == "index/y")
        #expect(unknownInIndex?.message.contains("compressed with method 2") == true)
        listed.packs[0].blobs[0].entry.compression = PackEntry.zstd
        #expect(try IndexFile.decode(IndexFile.encode(listed), name: "index/y").packs[0].blobs == listed.packs[0].blobs)
    }
}

/// The `SandboxError` an async body throws, or `nil`.
func asyncFailure(_ body: () async throws -> Void) async -> SandboxError? {
    do {
        try await body()
        return nil
    } catch let error as SandboxError {
        return error
    } catch {
        return SandboxError(.unknown, "\(error)")
    }
}
