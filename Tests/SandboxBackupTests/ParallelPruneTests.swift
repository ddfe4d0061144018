import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// A local storage of concurrency 8 that records when each put and deletion starts and ends, and
/// holds the first data deletion until a second one is under way (10 s at most): a prune's
/// deletions must overlap, in the order that keeps a killed prune safe.
final class RecordingStorage: ForwardingStorage, @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var log: [String] = []
    private var deletionsInFlight = 0
    private var mostDeletionsInFlight = 0
    private var gateOpen = false

    init(_ base: LocalRepositoryStorage) { super.init(base) }

    override var preferredConcurrency: Int { 8 }
    var events: [String] { condition.withLock { log } }
    var mostDeletionsAtOnce: Int { condition.withLock { mostDeletionsInFlight } }

    override func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        condition.withLock { log.append("put \(name.kind.rawValue)") }
        return try super.putIfAbsent(bytes, as: name)
    }

    override func delete(_ name: ObjectName) throws(SandboxError) {
        condition.lock()
        log.append("delete-start \(name.kind.rawValue)")
        deletionsInFlight += 1
        mostDeletionsInFlight = max(mostDeletionsInFlight, deletionsInFlight)
        if deletionsInFlight >= 2 { gateOpen = true }
        condition.broadcast()
        if name.kind == .data {
            let deadline = Date() + 10
            while !gateOpen && condition.wait(until: deadline) {}
            gateOpen = true  // a second deletion came, or none will: the others do not wait
        }
        condition.unlock()
        defer {
            condition.withLock {
                deletionsInFlight -= 1
                log.append("delete-end \(name.kind.rawValue)")
            }
        }
        try super.delete(name)
    }
}

@Suite struct ParallelPruneTests {
    @Test func prunesDeletionsOverlapAndKeepTheStepsInOrder() async throws {
        try await BackupFixture.with { fixture in
            let recording = RecordingStorage(
                try LocalRepositoryStorage.creatingLayout(atHostPath: fixture.repositoryPath))
            let repository = try await Repository.openOrCreate(recording, password: nil)
            for round in 0..<3 {
                for index in 0..<6 {
                    try fixture.write(
                        "Documents/f\(index).bin", ChunkerTests.pseudoRandom(3000, seed: UInt64(round * 10 + index)))
                }
                _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            }
            let dataBefore = try recording.list(.data).count
            let start = recording.events.count
            let report = try await Pruner.prune(repository, keepingLast: 1)
            let events = Array(recording.events[start...])
            #expect(report.snapshotsRemoved == 2)
            #expect(report.blobsRemoved >= 12)
            // Packs (format 4) go whole: the objects removed are the data deletions made.
            let dataDeletions = events.filter { $0 == "delete-end data" }.count
            #expect(dataDeletions >= 2)
            #expect(try recording.list(.data).count == dataBefore - dataDeletions)
            #expect(recording.mostDeletionsAtOnce >= 2, "\(events)")
            // Snapshot records go first, then the new index is written, then the old indexes go,
            // then the blobs: each step's deletions all end before the next step starts.
            let newIndex = try #require(events.firstIndex(of: "put index"))
            #expect(!events[..<newIndex].contains { $0.hasSuffix(" data") || $0.hasSuffix(" index") }, "\(events)")
            #expect(events[..<newIndex].filter { $0 == "delete-end snapshots" }.count == 2, "\(events)")
            #expect(!events[newIndex...].contains { $0.hasSuffix(" snapshots") }, "\(events)")
            let firstBlob = try #require(events.firstIndex(of: "delete-start data"))
            #expect(events[..<firstBlob].contains("delete-end index"), "\(events)")
            #expect(!events[firstBlob...].contains { $0.hasSuffix(" index") }, "\(events)")
            let check = try await Checker.check(repository, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
        }
    }
}
