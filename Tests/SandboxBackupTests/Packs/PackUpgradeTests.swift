import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A repository of format 3 (loose blobs, JSON index records) is read, backed up into (raised to 4
/// first), checked and pruned; a reader of 1–3 refuses format 4.
@Suite struct PackUpgradeTests {
    /// Rewrites the repository as format 3 wrote it: each packed blob as its own object
    /// `data/<2 hex>/<blob id>` (its plaintext sealed: loose blobs are never compressed), one JSON index record listing them,
    /// no packs, and the config at version 3 (authenticated again when encrypted).
    static func downgradeToFormat3(_ repository: Repository) throws {
        var blobs: [String: Int] = [:]
        for name in try repository.storage.list(.index) {
            for pack in try repository.loadIndexContents(name).packs {
                let packName = ObjectName(.data, pack.id.hex)
                let bytes = try repository.storage.get(packName)
                for blob in pack.blobs {
                    let start = Int(blob.offset)
                    let plain = try repository.unpack(
                        Array(bytes[start..<(start + Int(blob.entry.length))]), id: blob.entry.id.hex,
                        compression: blob.entry.compression, uncompressedLength: Int(blob.entry.uncompressedLength),
                        pack: packName)
                    _ = try plain.withBytes { (plain) throws(SandboxError) in
                        try repository.storeBlob(plain, id: blob.entry.id.hex)
                    }
                    blobs[blob.entry.id.hex] = Int(blob.entry.uncompressedLength)
                }
                try repository.storage.delete(packName)
            }
            try repository.storage.delete(name)
        }
        _ = try repository.storeRecord(IndexRecord(blobs: blobs), kind: .index)
        var config = try Repository.readConfig(repository.storage)
        config.version = 3
        config.authentication = repository.cipher.authentication(of: config)
        try repository.storage.replace(RepositoryJSON.encode(config), as: .config)
        repository.forgetIndex()
    }

    @Test(arguments: [nil, "pw"] as [String?])
    func aFormat3RepositoryIsBackedUpIntoRestoredCheckedAndPruned(password: String?) async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<40 { try fixture.write("Documents/\(index).txt", Array("old \(index)".utf8)) }
            try fixture.write("Documents/big.bin", ChunkerTests.pseudoRandom(3 << 20, seed: 5))
            let first = try await Backup.run(
                apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository(password: password))
            let firstTree = try TreeDescription(fixture.container.homeDirectory)
            try Self.downgradeToFormat3(try fixture.repository(password: password))
            let old = try fixture.repository(password: password)
            #expect(old.config.version == 3)
            let looseCount = try old.storage.list(.data).count
            #expect(looseCount > 40, "one object a blob")
            #expect(try await Checker.check(old, readingData: true).isHealthy)

            try fixture.write("Documents/3.txt", Array("changed".utf8))
            try fixture.write("Documents/new.txt", Array("new".utf8))
            let second = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: old)
            #expect(second.bytesStored < 1 << 20, "the loose blobs deduplicate: \(second.bytesStored) bytes stored")
            let secondTree = try TreeDescription(fixture.container.homeDirectory)
            let upgraded = try fixture.repository(password: password)
            #expect(upgraded.config.version == RepositoryConfig.packsVersion)
            #expect(upgraded.configAuthentication == (password == nil ? .none : .authenticated))
            #expect(try upgraded.storage.list(.data).count == looseCount + 2, "a data pack and a tree pack")
            // A program reading 1–3 refuses what it cannot read.
            let refusal = failure { () throws(SandboxError) in
                try upgraded.config.validate(in: "repo", reading: 1...3)
            }
            #expect(refusal?.code == .notARepository && refusal?.message.contains("Use a newer sandbox") == true)

            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await upgraded.snapshot(matching: first.snapshot), from: upgraded,
                into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == firstTree)
            #expect(try await Checker.check(upgraded, readingData: true).isHealthy)

            let pruned = try await Pruner.prune(upgraded, keepingLast: 1)
            #expect(pruned.blobsRemoved >= 1, "the old 3.txt and the first tree")
            let after = try fixture.repository(password: password)
            let check = try await Checker.check(after, readingData: true)
            #expect(check.isHealthy && check.unreferencedObjects.isEmpty, "\(check.problems)")
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await after.snapshot(matching: second.snapshot), from: after,
                into: fixture.home)
            #expect(try TreeDescription(fixture.container.homeDirectory) == secondTree)
        }
    }

    @Test func aPruneOfARepositoryWithoutPacksKeepsItsFormat() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("a".utf8))
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            try Self.downgradeToFormat3(try fixture.repository())
            _ = try await Pruner.prune(try fixture.repository(), keepingLast: 1)
            let repository = try fixture.repository()
            #expect(repository.config.version == 3)
            for name in try repository.storage.list(.index) {
                #expect(
                    !IndexFile.isBinary(try repository.loadRecordPlaintext(name)), "a JSON record, as format 3 reads")
            }
            #expect(try await Checker.check(repository, readingData: true).isHealthy)
        }
    }
}
