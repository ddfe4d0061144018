import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A local storage that dies after `limit` changes (puts, replaces, deletions; the lock's are
/// free): every later change fails, as if the process had been killed there.
final class DyingStorage: ForwardingStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var changes = 0
    let limit: Int

    init(_ base: LocalRepositoryStorage, dyingAfter limit: Int) {
        self.limit = limit
        super.init(base)
    }

    override var preferredConcurrency: Int { 1 }
    var changesMade: Int { lock.withLock { changes } }

    private func change(_ name: ObjectName) throws(SandboxError) {
        guard name.kind != .lock else { return }
        let allowed = lock.withLock { () -> Bool in
            guard changes < limit else { return false }
            changes += 1
            return true
        }
        guard allowed else { throw SandboxError(.repositoryUnreachable, "killed before changing '\(name)'") }
    }

    override func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        try change(name)
        return try super.putIfAbsent(bytes, as: name)
    }
    override func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) {
        try change(name)
        try super.replace(bytes, as: name)
    }
    override func delete(_ name: ObjectName) throws(SandboxError) {
        try change(name)
        try super.delete(name)
    }
}

/// Prune rewrites packs of which too much is unused, packs loose blobs, keeps one copy of a
/// duplicate; killed anywhere, the repository checks clean and every kept snapshot restores.
@Suite struct PackRepackTests {
    /// The bytes of the repository's `data/` objects.
    static func dataBytes(_ repository: Repository) throws -> Int64 {
        try repository.storage.list(.data).reduce(0) { $0 + (try repository.storage.size(of: $1) ?? 0) }
    }

    /// `count` files of `size` random bytes backed up; then the odd ones removed and backed up
    /// again: after a prune keeping the last snapshot, about half of each data pack is unused.
    /// Returns the second snapshot and its tree.
    static func halfUnused(
        _ fixture: BackupFixture, count: Int, size: Int
    ) async throws -> (snapshot: String, tree: TreeDescription) {
        for index in 0..<count {
            try fixture.write("Documents/f\(index).bin", ChunkerTests.pseudoRandom(size, seed: 700 + UInt64(index)))
        }
        _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
        for index in stride(from: 1, to: count, by: 2) {
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/f\(index).bin"))
        }
        let second = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
        return (second.snapshot, try TreeDescription(fixture.container.homeDirectory))
    }

    /// Restores `snapshot` from the repository at the fixture's path and compares it with `tree`;
    /// checks the repository, reading its data.
    static func expectIntact(
        _ fixture: BackupFixture, _ repository: Repository, snapshot: String, tree: TreeDescription,
        _ comment: String = ""
    ) async throws {
        let check = try await Checker.check(repository, readingData: true)
        #expect(check.isHealthy, "\(comment): \(check.problems)")
        _ = try await Restore.run(
            app: BackupFixture.app, snapshot: try await repository.snapshot(matching: snapshot), from: repository,
            into: fixture.home)
        #expect(try TreeDescription(fixture.container.homeDirectory) == tree, "\(comment)")
    }

    @Test func halfUnusedPacksAreRewrittenAndEverySnapshotRestores() async throws {
        try await BackupFixture.with { fixture in
            let (snapshot, tree) = try await Self.halfUnused(fixture, count: 8, size: 2 << 20)
            let repository = try fixture.repository()
            let before = try Self.dataBytes(repository)
            let dry = try await Pruner.prune(repository, policy: RetentionPolicy(last: 1), dryRun: true)
            #expect(dry.packsRepacked >= 2 && dry.bytesRepacked > 7 << 20, "\(dry)")
            let cli = try await fixture.sandbox(["prune", fixture.repositoryPath, "--keep-last", "1", "--dry-run"])
            #expect(cli.status == 0, "\(cli.stderr)")
            #expect(cli.stdout.contains("remove 1 and repack \(dry.packsRepacked) pack(s)"), "\(cli.stdout)")
            #expect(cli.stdout.contains("nothing was removed or repacked"))
            #expect(try Self.dataBytes(repository) == before, "a dry run changes nothing")
            #expect(try await repository.snapshots().count == 2)

            let report = try await Pruner.prune(repository, keepingLast: 1)
            #expect(report.packsRepacked >= 2 && report.packsWritten >= 1, "\(report)")
            #expect(report.unusedBytesLeft == 0)
            let after = try Self.dataBytes(try fixture.repository())
            #expect(after < before - (7 << 20), "\(before) → \(after) bytes")
            #expect(after > 8 << 20, "the used half stays")
            let reopened = try fixture.repository()
            try await Self.expectIntact(fixture, reopened, snapshot: snapshot, tree: tree)
            #expect(try await Checker.check(reopened, readingData: false).unreferencedObjects.isEmpty)
        }
    }

    @Test func aLittleUnusedStaysUnderTheLimitAndGoesAtZero() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<4 {
                try fixture.write("Documents/f\(index).bin", ChunkerTests.pseudoRandom(1 << 20, seed: UInt64(index)))
            }
            try fixture.write("Documents/small.bin", ChunkerTests.pseudoRandom(100 << 10, seed: 77))
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/small.bin"))
            let second = try await Backup.run(
                apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            let tree = try TreeDescription(fixture.container.homeDirectory)

            let first = try await Pruner.prune(try fixture.repository(), keepingLast: 1)
            #expect(first.packsRepacked == 0, "2 % unused is within 5 %: \(first)")
            #expect(first.unusedBytesLeft >= 100 << 10)
            let zero = try await Pruner.prune(
                try fixture.repository(), policy: RetentionPolicy(last: 1),
                repacking: RepackPolicy(maximumUnusedPercent: 0))
            #expect(zero.packsRepacked == 1 && zero.unusedBytesLeft == 0, "\(zero)")
            try await Self.expectIntact(fixture, try fixture.repository(), snapshot: second.snapshot, tree: tree)
        }
    }

    @Test func aFormat3RepositorysLooseBlobsEndInPacks() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<30 { try fixture.write("Documents/\(index).txt", Array("old \(index)".utf8)) }
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            try PackUpgradeTests.downgradeToFormat3(try fixture.repository())
            try fixture.write("Documents/new.txt", Array("new".utf8))
            let second = try await Backup.run(
                apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            let tree = try TreeDescription(fixture.container.homeDirectory)
            let report = try await Pruner.prune(try fixture.repository(), keepingLast: 1)
            #expect(report.looseBlobsPacked >= 30, "\(report)")
            let repository = try fixture.repository()
            let packs = Set(try PackTests.packs(repository).map(\.id.hex))
            let loose = try repository.storage.list(.data).filter { !packs.contains($0.name) }
            #expect(loose.isEmpty, "loose blobs left: \(loose)")
            try await Self.expectIntact(fixture, repository, snapshot: second.snapshot, tree: tree)
        }
    }

    @Test func aBlobStoredTwiceIsKeptOnce() async throws {
        try await BackupFixture.with { fixture in
            for index in 0..<20 { try fixture.write("Documents/\(index).txt", Array("file \(index)".utf8)) }
            let backup = try await Backup.run(
                apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
            let tree = try TreeDescription(fixture.container.homeDirectory)
            // A concurrent backup's pack: two blobs the first pack holds too, as stored.
            let repository = try fixture.repository()
            let original = try #require(try PackTests.packs(repository).first { $0.blobs.count >= 20 })
            let bytes = try repository.storage.get(ObjectName(.data, original.id.hex))
            var copy = FinishedPack(kind: original.blobs[0].entry.kind, blobs: [], entries: [])
            for blob in original.blobs.prefix(2) {
                copy.blobs += bytes[Int(blob.offset)..<(Int(blob.offset) + Int(blob.entry.length))]
                copy.entries.append(blob.entry)
            }
            let duplicate = try repository.writePack(copy).pack
            _ = try repository.storeIndex(IndexContents(packs: [duplicate]))
            func copies(_ repository: Repository) throws -> Int {
                try PackTests.packs(repository).reduce(0) { count, pack in
                    count + pack.blobs.filter { $0.entry.id == original.blobs[0].entry.id }.count
                }
            }
            #expect(try copies(repository) == 2)

            let report = try await Pruner.prune(try fixture.repository(), keepingLast: 1)
            #expect(report.blobsRemoved == 2 && report.packsRepacked == 0, "\(report)")
            let after = try fixture.repository()
            #expect(try copies(after) == 1)
            #expect(try after.storage.size(of: ObjectName(.data, duplicate.id.hex)) == nil)
            try await Self.expectIntact(fixture, after, snapshot: backup.snapshot, tree: tree)
        }
    }

    /// A prune dying after each of its changes in turn (new packs, new index, old indexes, each
    /// deletion): each time, the repository checks clean, the kept snapshot restores, and a
    /// second prune finishes the work.
    @Test func aPruneDyingAfterAnyChangeLeavesARepositoryThatChecksAndRestores() async throws {
        try await BackupFixture.with { fixture in
            let (snapshot, tree) = try await Self.halfUnused(fixture, count: 4, size: 1 << 20)
            let template = fixture.scratch.appending("template")
            try FileManager.default.copyItem(atPath: fixture.repositoryPath, toPath: template)
            func restart(dyingAfter limit: Int) throws -> DyingStorage {
                try? FileManager.default.removeItem(atPath: fixture.repositoryPath)
                try FileManager.default.copyItem(atPath: template, toPath: fixture.repositoryPath)
                return DyingStorage(
                    try LocalRepositoryStorage.creatingLayout(atHostPath: fixture.repositoryPath), dyingAfter: limit)
            }
            let whole = try restart(dyingAfter: .max)
            let full = try await Pruner.prune(try Repository.open(whole, password: nil), keepingLast: 1)
            #expect(full.packsRepacked == 1)
            let changes = whole.changesMade
            #expect(changes >= 5, "snapshot, pack, index, old indexes, old packs")
            for limit in 0..<changes {
                let dying = try restart(dyingAfter: limit)
                var code: SandboxError.Code?
                do {
                    _ = try await Pruner.prune(try Repository.open(dying, password: nil), keepingLast: 1)
                } catch let error as SandboxError {
                    code = error.code
                }
                #expect(code == .repositoryUnreachable, "killed after \(limit) changes")
                try await Self.expectIntact(
                    fixture, try fixture.repository(), snapshot: snapshot, tree: tree, "killed after \(limit) changes")
                _ = try await Pruner.prune(try fixture.repository(), keepingLast: 1)
                let finished = try fixture.repository()
                let check = try await Checker.check(finished, readingData: false)
                #expect(check.isHealthy && check.unreferencedObjects.isEmpty, "\(limit): \(check.problems)")
                #expect(try Self.dataBytes(finished) < 3 << 20, "\(limit): the unused half is gone")
            }
        }
    }

    /// The real thing: `sandbox-backup-harness prune` SIGKILLed at random moments of its run.
    @Test func aPruneKilledMidwayLeavesARepositoryThatChecksAndRestores() async throws {
        try await BackupFixture.with { fixture in
            let (snapshot, tree) = try await Self.halfUnused(fixture, count: 4, size: 1 << 20)
            let template = fixture.scratch.appending("template")
            try FileManager.default.copyItem(atPath: fixture.repositoryPath, toPath: template)
            func restart() throws {
                try FileManager.default.removeItem(atPath: fixture.repositoryPath)
                try FileManager.default.copyItem(atPath: template, toPath: fixture.repositoryPath)
            }
            let arguments = ["prune", fixture.home.location, fixture.repositoryPath, BackupFixture.app.rawValue, "1"]
            var full = try await KillTests.duration(of: arguments, fixture)
            let rounds = 8
            let (killed, ran) = try await KillTests.killRounds(rounds) { round in
                try restart()
                let program = try KillTests.start(fixture, arguments)
                program.signal(SIGKILL, after: KillTests.randomDelay(upTo: full))
                let exit = await program.exit(timeout: .seconds(120))
                if exit.signal != SIGKILL {
                    let stderr = try program.standardError()
                    #expect(exit.status == 0, "\(stderr)")
                    full = KillTests.shortest(full, program)
                }
                try await Self.expectIntact(
                    fixture, try fixture.repository(), snapshot: snapshot, tree: tree, "round \(round)")
                return exit.signal == SIGKILL
            }
            #expect(killed > rounds / 3, "only \(killed) of \(ran) runs were killed mid-way")
        }
    }
}
