import Glibc
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxCore

@Suite("I/O engine")
struct EngineTests {
    @Test("runs work on its threads and returns results and errors")
    func runsWork() async throws {
        let engine = IOEngine(threadCount: 2, queueCapacity: 4)
        defer { engine.shutdown() }
        let caller = pthread_self()
        let onOtherThread = try await engine.run { pthread_equal(pthread_self(), caller) == 0 }
        #expect(onOtherThread)
        #expect(try await engine.run { 6 * 7 } == 42)
        await expectIOError(.notFound) {
            try await engine.run { () throws(SandboxError) -> Int in throw .rule(.notFound, "none") }
        }
    }

    @Test("the queue never holds more than its capacity; the rest wait and all complete")
    func boundedQueue() async throws {
        let engine = IOEngine(threadCount: 1, queueCapacity: 2)
        defer { engine.shutdown() }
        let total = 40
        let sum = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<total {
                group.addTask {
                    try await engine.run {
                        usleep(200)
                        return index
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sum == total * (total - 1) / 2)
        // A job counts as completed just after it resumes its caller: wait for the last count.
        _ = await eventually { engine.statistics.completed >= total }  // checked below
        let statistics = engine.statistics
        #expect(statistics.peakQueued <= 2)
        #expect(statistics.completed == total)
        #expect(statistics.waiting == 0)
    }

    @Test("a task cancelled while its job waits for a slot gets .interrupted and its job never runs")
    func cancelWaiting() async throws {
        let engine = IOEngine(threadCount: 1, queueCapacity: 1)
        defer { engine.shutdown() }
        let release = Flag()
        let ran = Counter()
        // Occupy the thread, then fill the one queue slot.
        async let blocker: Void = engine.run { while !release.isSet { usleep(100) } }
        while engine.statistics.running == 0 { await Task.yield() }
        async let queued: Void = engine.run { ran.add(1) }
        while engine.statistics.queued == 0 { await Task.yield() }
        let waiting = Task { try await engine.run { ran.add(100) } }
        while engine.statistics.waiting == 0 { await Task.yield() }
        waiting.cancel()
        await expectIOError(.interrupted) { try await waiting.value }
        release.set()
        try await blocker
        try await queued
        #expect(ran.value == 1)
    }

    @Test("after shutdown, work is rejected with .interrupted and the threads exit")
    func shutdown() async throws {
        let engine = IOEngine(threadCount: 2, queueCapacity: 2)
        #expect(try await engine.run { 1 } == 1)
        engine.shutdown()
        await expectIOError(.interrupted) { try await engine.run { 2 } }
        #expect(await eventually { engine.statistics.liveThreads == 0 })
    }

    @Test("the work queue state machine admits up to capacity, then makes jobs wait, in order")
    func workQueueMachine() {
        var queue = WorkQueue(capacity: 2)
        func job(_ id: UInt64) -> IOJob { IOJob(id: id, work: {}, reject: { _ in }) }
        #expect(queue.submit(job(1)) == .queued)
        #expect(queue.submit(job(2)) == .queued)
        #expect(queue.submit(job(3)) == .waiting)
        #expect(queue.submit(job(4)) == .waiting)
        #expect(queue.withdraw(4)?.id == 4)
        #expect(queue.withdraw(1) == nil)  // admitted jobs cannot be withdrawn
        #expect(queue.take()?.id == 1)  // admits 3
        #expect(queue.queued.count == 2)
        #expect(queue.take()?.id == 2)
        #expect(queue.take()?.id == 3)
        #expect(queue.take() == nil)
        #expect(queue.submit(job(5)) == .queued)
        #expect(queue.submit(job(6)) == .queued)
        #expect(queue.submit(job(7)) == .waiting)
        #expect(queue.stop().map(\.id) == [7])
        #expect(queue.submit(job(8)) == .rejected)
        #expect(queue.peakQueued == 2)
    }

    @Test("buffers are reused from the pool")
    func bufferReuse() {
        let pool = BufferPool(maximumPooledSize: 1 << 20, cacheLimit: 4 << 20)
        var first: UnsafeMutableRawPointer?
        do {
            let storage = pool.take(minimumCapacity: 1 << 20)
            first = storage.base
            #expect(storage.capacity == 1 << 20)
        }
        #expect(pool.cachedBytes == 1 << 20)
        let again = pool.take(minimumCapacity: 700_000)
        #expect(again.base == first)
        #expect(BufferPool.sizeClass(for: 1) == 4096)
        #expect(BufferPool.sizeClass(for: 4097) == 8192)
        #expect(BufferPool.sizeClass(for: 1 << 20) == 1 << 20)
    }
}

/// A counter tasks and engine threads can share.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)
    func add(_ amount: Int) { storage.add(amount, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}

/// A flag tasks and engine threads can share.
final class Flag: Sendable {
    private let storage = Atomic<Bool>(false)
    func set() { storage.store(true, ordering: .releasing) }
    var isSet: Bool { storage.load(ordering: .acquiring) }
}
