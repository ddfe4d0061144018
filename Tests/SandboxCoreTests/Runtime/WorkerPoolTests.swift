import Foundation
import Glibc
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxCore

/// The runtime's worker pool: its threads are its own (named, in procfs), a bound holds the owner
/// back, and while every one of them blocks the cooperative pool still runs.
@Suite struct WorkerPoolTests {
    /// `count` jobs numbered from 0; each records the name of the thread that did it.
    struct Jobs: WorkerPoolState {
        var taken = 0
        var count: Int
        var done: [String] = []

        mutating func next() -> WorkerStep<Int> {
            guard taken < count else { return .finish }
            defer { taken += 1 }
            return .perform(taken)
        }

        mutating func record(_ outcome: String) { done.append(outcome) }
    }

    @Test func theWorkRunsOnThePoolsNamedThreadsWhileTheCooperativePoolStaysFree() async throws {
        let gate = OwnedThreadTests.Gate()
        let threads = 4
        let started = StartedThreads()
        let pool = StartedThreads.$current.withValue(started) {
            WorkerPool(Jobs(count: threads), threads: threads, name: "rt-pool") { _ in
                let name = ThreadName.current() ?? "?"
                gate.wait()  // blocks the pool's thread, as a blob read does
                return name
            }
        }
        #expect(await eventually { gate.arrived == threads })
        #expect(started.all.count == threads)
        // Every pool thread is blocked: tasks, twice as many as the cooperative pool has threads,
        // still all run to the end.
        let tasks = 2 * ProcessInfo.processInfo.activeProcessorCount
        let finished = await withTaskGroup(of: Int.self) { group in
            for index in 0..<tasks { group.addTask { index } }
            return await group.reduce(0) { count, _ in count + 1 }
        }
        #expect(finished == tasks)
        let names = OwnedThreadTests.threadNames()
        for index in 0..<threads { #expect(names.contains("rt-pool-\(index)")) }
        gate.release()
        #expect(await eventually { pool.withState { $0.done.count } == threads })
        let done = pool.withState { $0.done }
        #expect(Set(done) == Set((0..<threads).map { "rt-pool-\($0)" }))
        pool.stop()  // every thread has finished: this returns at once
        #expect(await eventually { !OwnedThreadTests.threadNames().contains { $0.hasPrefix("rt-pool-") } })
    }
}
