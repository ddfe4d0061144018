import SandboxCore
import Testing

@testable import SandboxBackup

/// The blob writers' shared state, driven by hand as the ``WorkerPool``'s threads would drive it:
/// what is taken next, deduplication, the bound on bytes in flight, and a failure.
@Suite struct BlobQueueTests {
    /// Takes the next piece of work, which must exist.
    private func take(_ queue: inout BlobQueue) throws -> BlobQueue.Work {
        guard case .perform(let work) = queue.next() else {
            Issue.record("no work to take")
            throw SandboxError(.invalidArgument, "no work")
        }
        return work
    }

    @Test func aNewChunkIsNamedThenStoredAndAKnownOneOnlyNamed() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100)
        queue.remember(["known"])
        let first = queue.enqueue([1, 2, 3])
        let second = queue.enqueue([4, 5])
        #expect(queue.bytesInFlight == 5 && !queue.isSettled)

        let naming = try take(&queue)
        #expect(naming.ticket == first)
        queue.record(.named(naming, id: "new"))
        #expect(queue.hasName(for: first) && queue.takeName(for: first) == "new")
        #expect(queue.takeName(for: first) == nil)  // handed out once

        // The named chunk is stored before the next one is named.
        let storing = try take(&queue)
        guard case .store(let id) = storing.step else { throw SandboxError(.invalidArgument, "not a store") }
        #expect(id == "new" && storing.bytes == [1, 2, 3])
        queue.record(.stored(storing, id: id, bytesWritten: 40))

        let known = try take(&queue)
        #expect(known.ticket == second)
        queue.record(.named(known, id: "known"))  // held already: dropped, not stored
        #expect(queue.isSettled)
        #expect(queue.bytesInFlight == 0)
        #expect(queue.stored == ["new": 3])
        #expect(queue.takeWritten() == 40 && queue.takeWritten() == 0)
        #expect(queue.next().isWait)
    }

    @Test func equalChunksNamedTogetherAreStoredOnce() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100)
        let tickets = [queue.enqueue([7, 7]), queue.enqueue([7, 7])]
        let one = try take(&queue)
        let other = try take(&queue)  // both being named at once, on two threads
        queue.record(.named(other, id: "same"))
        queue.record(.named(one, id: "same"))
        let store = try take(&queue)
        #expect(queue.next().isWait)  // one store only
        queue.record(.stored(store, id: "same", bytesWritten: 2))
        #expect(queue.isSettled && queue.bytesInFlight == 0 && queue.stored == ["same": 2])
        #expect(tickets.map { queue.takeName(for: $0) } == ["same", "same"])
    }

    @Test func bytesInFlightAreBoundedButOneChunkAlwaysGoes() throws {
        var queue = BlobQueue(maximumBytesInFlight: 10)
        #expect(queue.accepts(byteCount: 50))  // nothing in flight: a chunk larger than the bound goes
        _ = queue.enqueue([UInt8](repeating: 0, count: 6))
        #expect(queue.accepts(byteCount: 4) && !queue.accepts(byteCount: 5))
        let work = try take(&queue)
        queue.record(.named(work, id: "a"))
        #expect(!queue.accepts(byteCount: 5))  // still in flight until stored
        let store = try take(&queue)
        queue.record(.stored(store, id: "a", bytesWritten: 6))
        #expect(queue.accepts(byteCount: 10))
    }

    @Test func aFailureSettlesTheQueueAndEndsTheWriters() throws {
        var queue = BlobQueue(maximumBytesInFlight: 100)
        _ = queue.enqueue([1])
        let waiting = queue.enqueue([2])
        let work = try take(&queue)
        queue.record(.named(work, id: "a"))
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
