import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// zstd in packs (issue 30): a backup stores each compressible blob as one zstd frame (compression
/// 1) and the rest as they are (0), a restore and `check --read-data` read both, and a forged
/// entry — a frame inflating past its length, one declaring another length, an index disagreeing
/// with the header, an unknown compression — is refused as `repository-damaged` naming the pack.
@Suite struct PackCompressionTests {
    /// The entries of `pack`'s header, as stored.
    static func header(of pack: IndexedPack, in repository: Repository) throws -> [PackEntry] {
        let name = ObjectName(.data, pack.id.hex)
        return try PackHeader.parse(repository.storage.get(name), cipher: repository.cipher, name: name.description)
            .map(\.entry)
    }

    static func key(of bytes: [UInt8], in repository: Repository) throws -> BlobKey {
        try #require(BlobKey(hex: bytes.withUnsafeBytes { repository.blobID(of: $0) }))
    }

    @Test func textIsStoredCompressedRandomDataRawAndBothRestoreByteIdentical() async throws {
        try await BackupFixture.with { fixture in
            var texts: [[UInt8]] = []
            for index in 0..<4 {
                texts.append(Array("notes \(index)\n".utf8) + BlobCompressionTests.text(200_000))
                try fixture.write("Documents/notes\(index).txt", texts[index])
            }
            let random = ChunkerTests.pseudoRandom(200_000, seed: 3)
            try fixture.write("Documents/photo.bin", random)
            let repository = try fixture.repository(password: "pw")
            let before = try TreeDescription(fixture.container.homeDirectory)
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)

            var entries: [BlobKey: PackEntry] = [:]
            for pack in try PackTests.packs(repository) {
                let header = try Self.header(of: pack, in: repository)
                #expect(header == pack.blobs.sorted { $0.offset < $1.offset }.map(\.entry), "index and header agree")
                for entry in header { entries[entry.id] = entry }
            }
            var textStored = 0
            for text in texts {
                // The id is still the hash of the plaintext: deduplication is unchanged.
                let entry = try #require(entries[try Self.key(of: text, in: repository)])
                #expect(entry.compression == PackEntry.zstd && entry.uncompressedLength == UInt32(text.count))
                textStored += Int(entry.length)
            }
            let textBytes = texts.reduce(0) { $0 + $1.count }
            #expect(textStored < textBytes / 3, "\(textStored) bytes stored for \(textBytes) bytes of text")
            let photo = try #require(entries[try Self.key(of: random, in: repository)])
            #expect(photo.compression == PackEntry.uncompressed && photo.uncompressedLength == UInt32(random.count))
            #expect(entries.values.contains { $0.kind == .tree && $0.compression == PackEntry.zstd })
            var repositoryBytes: Int64 = 0
            for name in try repository.storage.list(.data) {
                repositoryBytes += try repository.storage.size(of: name) ?? 0
            }
            let inputBytes = Int64(textBytes + random.count)
            #expect(repositoryBytes < inputBytes / 2, "\(repositoryBytes) bytes of packs for \(inputBytes) of files")

            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/notes2.txt"))
            try fixture.write("Documents/photo.bin", Array("changed".utf8))
            let snapshot = try await repository.snapshot(matching: report.snapshot)
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
            let check = try await Checker.check(try fixture.repository(password: "pw"), readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
        }
    }

    // MARK: Forged entries

    /// A backup of one text file (one compressed data blob) into an unencrypted repository.
    static func backUpText(_ fixture: BackupFixture) async throws -> (Repository, Snapshot, BlobKey, [UInt8]) {
        let text = BlobCompressionTests.text(200_000)
        try fixture.write("Documents/notes.txt", text)
        let repository = try fixture.repository()
        let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
        let blob = try key(of: text, in: repository)
        let stored = try #require(try PackTests.packs(repository).flatMap(\.blobs).first { $0.entry.id == blob })
        #expect(stored.entry.compression == PackEntry.zstd)
        return (repository, try await repository.snapshot(matching: report.snapshot), blob, text)
    }

    /// Rewrites the pack holding `blob` with its stored bytes and header entry changed, and the
    /// index to match, or changed by `index` instead: a repository consistent but for the lie made
    /// (the pack's name still matches its bytes).
    ///
    /// - Returns: the new pack, as the index now lists it.
    static func forge(
        _ repository: Repository, blob: BlobKey, stored change: ([UInt8]) -> [UInt8] = { $0 },
        header: (inout PackEntry) -> Void = { _ in }, index: ((inout PackEntry) -> Void)? = nil
    ) throws -> IndexedPack {
        let old = try #require(try PackTests.packs(repository).first { $0.blobs.contains { $0.entry.id == blob } })
        let oldName = ObjectName(.data, old.id.hex)
        let bytes = try repository.storage.get(oldName)
        var finished = FinishedPack(kind: .data, blobs: [], entries: [])
        var listed: [PackEntry] = []
        for (entry, offset) in try PackHeader.parse(bytes, cipher: repository.cipher, name: oldName.description) {
            var stored = Array(bytes[offset..<(offset + Int(entry.length))])
            var inHeader = entry
            var inIndex = entry
            if entry.id == blob {
                stored = change(stored)
                inHeader.length = UInt32(stored.count)
                inIndex = inHeader
                header(&inHeader)
                if let index { index(&inIndex) } else { header(&inIndex) }
            }
            finished.kind = entry.kind
            finished.blobs += stored
            finished.entries.append(inHeader)
            listed.append(inIndex)
        }
        var pack = try repository.writePack(finished).pack
        for position in pack.blobs.indices { pack.blobs[position].entry = listed[position] }
        if pack.id != old.id { try repository.storage.delete(oldName) }
        for name in try repository.storage.list(.index) {
            var contents = try repository.loadIndexContents(name)
            guard let position = contents.packs.firstIndex(where: { $0.id == old.id }) else { continue }
            contents.packs[position] = pack
            try repository.storage.delete(name)
            _ = try repository.storeIndex(contents)
        }
        repository.forgetIndex()
        return pack
    }

    /// A restore is refused naming `pack` and leaves the container as it was; `check --read-data`
    /// names the pack too, and the files it affects (`affected`: the text file's path, or the
    /// app's whole tree when the index record listing the pack cannot be read).
    static func expectRefused(
        _ fixture: BackupFixture, _ repository: Repository, _ snapshot: Snapshot, naming pack: IndexedPack,
        saying why: String, affected: String = ":Documents/notes.txt",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await PackHostileTests.expectRestoreRefused(fixture, repository, snapshot, naming: pack)
        let error = await asyncFailure {
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
        }
        #expect(error?.message.contains(why) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        let check = try await Checker.check(try fixture.repository(), readingData: true)
        #expect(
            check.problems.contains { $0.contains(pack.id.hex) }, "\(check.problems)", sourceLocation: sourceLocation)
        #expect(
            check.affectedFiles.contains { $0.hasSuffix(affected) }, "\(check.affectedFiles)",
            sourceLocation: sourceLocation)
    }

    @Test func aFrameInflatingPastItsLengthIsRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, blob, text) = try await Self.backUpText(fixture)
            // Declares the text's length, then inflates to 256 KiB: zstd stops at the declared bound.
            let bomb = HandMadeZstdFrame.bytes(
                declaring: text.count,
                blocks: [.repeated(0x41, count: HandMadeZstdFrame.maximumBlockSize), .repeated(0x42, count: 1 << 17)])
            let pack = try Self.forge(repository, blob: blob, stored: { _ in bomb })
            try await Self.expectRefused(fixture, repository, snapshot, naming: pack, saying: "zstd cannot decode")
        }
    }

    @Test func aFrameDeclaringAnotherLengthThanItsEntryIsRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, blob, text) = try await Self.backUpText(fixture)
            let pack = try Self.forge(repository, blob: blob, header: { $0.uncompressedLength += 1 })
            try await Self.expectRefused(
                fixture, repository, snapshot, naming: pack,
                saying: "declares \(text.count) bytes where its pack gives \(text.count + 1)")
        }
    }

    /// The bound is the repository's largest chunk (8 MiB here), not the 33 MiB any repository
    /// may have: a length past it is refused before anything is allocated or inflated.
    @Test func aLengthPastTheRepositorysLargestChunkIsRefusedBeforeInflating() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, blob, _) = try await Self.backUpText(fixture)
            let largest = repository.config.chunking.maximumSize
            let frame = HandMadeZstdFrame.bytes(
                declaring: largest + 1, blocks: [.repeated(0, count: HandMadeZstdFrame.maximumBlockSize)])
            let pack = try Self.forge(
                repository, blob: blob, stored: { _ in frame }, header: { $0.uncompressedLength = UInt32(largest + 1) })
            try await Self.expectRefused(
                fixture, repository, snapshot, naming: pack, saying: "outside the 0…\(largest) a blob may have")
        }
    }

    @Test func anIndexGivingAnotherLengthThanTheHeaderIsRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, blob, text) = try await Self.backUpText(fixture)
            let pack = try Self.forge(repository, blob: blob, index: { $0.uncompressedLength -= 1 })
            try await Self.expectRefused(
                fixture, repository, snapshot, naming: pack,
                saying: "declares \(text.count) bytes where its pack gives \(text.count - 1)")
            let check = try await Checker.check(try fixture.repository(), readingData: true)
            #expect(
                check.problems.contains {
                    $0.contains(pack.id.hex) && $0.contains("does not hold what the index lists")
                })
        }
    }

    @Test func anUnknownCompressionIsRefusedNamingThePack() async throws {
        try await BackupFixture.with { fixture in
            let (repository, snapshot, blob, _) = try await Self.backUpText(fixture)
            let pack = try Self.forge(repository, blob: blob, header: { $0.compression = 2 })
            // The index record listing it cannot be read, so neither can the app's tree it also lists.
            try await Self.expectRefused(
                fixture, repository, snapshot, naming: pack, saying: "compressed with method 2", affected: "(its tree)")
            // A reader given the byte some other way (the index listing it as zstd) refuses it too.
            let entry = try #require(pack.blobs.first { $0.entry.id == blob }?.entry)
            let unknown = failure { () throws(SandboxError) in
                _ = try repository.unpack(
                    [], id: blob.hex, compression: 2, uncompressedLength: Int(entry.uncompressedLength),
                    pack: ObjectName(.data, pack.id.hex))
            }
            #expect(
                unknown?.code == .repositoryDamaged && unknown?.path == "data/\(pack.id.hex.prefix(2))/\(pack.id.hex)")
        }
    }
}
