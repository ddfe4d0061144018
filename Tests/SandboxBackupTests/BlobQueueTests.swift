import SandboxCore
import Testing

@testable import SandboxBackup

/// The blob writers' shared state, driven by hand as the ``WorkerPool``'s threads would drive it:
/// what is taken next, deduplication, the bound on bytes in flight, packs, and a failure.
@Suite struct BlobQueueTests {
    /// Takes the next piece of work, which must exist.
    private func take(_ queue: inout BlobQueue) throws -> BlobQueue.Work {
        guard case .perform(let work) = queue.next() else {
            Issue.record("no work to take")
            throw SandboxError(.invalidArgument, "no work")
        }
        return work
    }

    /// A blob id: 64 hex digits made of `digit`.
    static func id(_ digit: Character) -> String { String(repeating: digit, count: 64) }

    /// An index listing `ids` as loose blobs.
    static func index(_ ids: [String]) -> BlobIndex {
        var index = BlobIndex()
        var contents = IndexContents()
        for id in ids { if let key = BlobKey(hex: id) { contents.loose.append((key, 1)) } }
        index.add(contents)
        index.finish()
        return index
    }

    /// Seals work taken to store (as the writers do, unencrypted: the bytes as they are).
    private func seal(_ work: BlobQueue.Work, in queue: inout BlobQueue) throws {
        guard case .store(let id) = work.step else { throw SandboxError(.invalidArgument, "not a store") }
        queue.record(.sealed(work, id: id, sealed: work.bytes))
    }

    @Test func aNewChunkIsNamedThenSealedIntoAPackAndAKnownOneOnlyNamed() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100, existing: Self.index([Self.id("b")]))
        let first = queue.enqueue([1, 2, 3])
        let second = queue.enqueue([4, 5])
        #expect(queue.bytesInFlight == 5 && !queue.isSettled)

        let naming = try take(&queue)
        #expect(naming.ticket == first)
        queue.record(.named(naming, id: Self.id("a")))
        #expect(queue.hasName(for: first) && queue.takeName(for: first) == Self.id("a"))
        #expect(queue.takeName(for: first) == nil)  // handed out once

        // The named chunk is sealed before the next one is named.
        let storing = try take(&queue)
        #expect(storing.bytes == [1, 2, 3])
        try seal(storing, in: &queue)

        let known = try take(&queue)
        #expect(known.ticket == second)
        queue.record(.named(known, id: Self.id("b")))  // held already: dropped, not stored
        #expect(queue.isSettled)
        #expect(queue.bytesInFlight == 0)
        #expect(queue.next().isWait)  // the pack is open until the end

        queue.finishPacks()
        let write = try take(&queue)
        guard case .writePack(let pack) = write.step else { throw SandboxError(.invalidArgument, "not a pack") }
        #expect(pack.blobs == [1, 2, 3] && pack.entries.map(\.id.hex) == [Self.id("a")])
        let written = IndexedPack(
            id: try #require(BlobKey(hex: Self.id("c"))), blobs: pack.entries.map { IndexedBlob(entry: $0, offset: 0) })
        queue.record(.packWritten(write, written, bytesWritten: 40))
        #expect(queue.isSettled && queue.packs.map(\.id) == [written.id])
        #expect(queue.takeWritten() == 40 && queue.takeWritten() == 0)
    }

    @Test func equalChunksNamedTogetherAreStoredOnce() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100)
        let tickets = [queue.enqueue([7, 7]), queue.enqueue([7, 7])]
        let one = try take(&queue)
        let other = try take(&queue)  // both being named at once, on two threads
        queue.record(.named(other, id: Self.id("d")))
        queue.record(.named(one, id: Self.id("d")))
        let store = try take(&queue)
        #expect(queue.next().isWait)  // one store only
        try seal(store, in: &queue)
        #expect(queue.isSettled && queue.bytesInFlight == 0)
        #expect(tickets.map { queue.takeName(for: $0) } == [Self.id("d"), Self.id("d")])
    }

    @Test func aFullPackIsWrittenBeforeMoreIsNamedAndHoldsTheBackupBack() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100, packSize: 4)
        _ = queue.enqueue([1, 2, 3, 4, 5])
        let naming = try take(&queue)
        queue.record(.named(naming, id: Self.id("e")))
        try seal(try take(&queue), in: &queue)  // 5 bytes: the pack is full
        let write = try take(&queue)
        guard case .writePack(let pack) = write.step else {
            Issue.record("the full pack is not written first")
            return
        }
        #expect(pack.blobs.count == 5)
        #expect(queue.accepts(byteCount: 1))  // 5 bytes of packs, under 3 × 4
        _ = queue.enqueue([UInt8](repeating: 0, count: 8))
        let more = try take(&queue)
        queue.record(.named(more, id: Self.id("f")))
        try seal(try take(&queue), in: &queue)
        #expect(!queue.accepts(byteCount: 1))  // 13 bytes of packs waiting to be written
    }

    @Test func bytesInFlightAreBoundedButOneChunkAlwaysGoes() throws {
        var queue = BlobQueue(maximumBytesInFlight: 10)
        #expect(queue.accepts(byteCount: 50))  // nothing in flight: a chunk larger than the bound goes
        _ = queue.enqueue([UInt8](repeating: 0, count: 6))
        #expect(queue.accepts(byteCount: 4) && !queue.accepts(byteCount: 5))
        let work = try take(&queue)
        queue.record(.named(work, id: Self.id("a")))
        #expect(!queue.accepts(byteCount: 5))  // still in flight until sealed
        try seal(try take(&queue), in: &queue)
        #expect(queue.accepts(byteCount: 10))
    }

    @Test func aFailureSettlesTheQueueAndEndsTheWriters() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100)
        _ = queue.enqueue([1])
        let waiting = queue.enqueue([2])
        let work = try take(&queue)
        queue.record(.named(work, id: Self.id("a")))
        let store = try take(&queue)
        queue.record(.failed(store, SandboxError(.noSpace, "No space left.")))
        #expect(queue.failure?.code == .noSpace)
        #expect(queue.isSettled && queue.accepts(byteCount: 1_000))  // waiters wake to the failure
        #expect(!queue.hasName(for: waiting))
        guard case .finish = queue.next() else {
            Issue.record("a writer goes on after a failure")
            return
        }
    }
}

extension WorkerStep {
    fileprivate var isWait: Bool {
        if case .wait = self { return true }
        return false
    }
}
