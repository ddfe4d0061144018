import Foundation
import Glibc
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxCore

/// The runtime's threads: named once (the name is what procfs shows), joined or detached, and
/// never borrowed from Swift's cooperative pool.
@Suite struct OwnedThreadTests {
    /// The names of this process's threads, from `/proc/self/task/*/comm`.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }

    /// A gate a thread of our own waits at until the test opens it.
    ///
    /// `@unchecked Sendable`: `open` is guarded by `lock`.
    final class Gate: @unchecked Sendable {
        private let lock = ConditionLock()
        private var open = false
        private let arrivals = Atomic(0)

        var arrived: Int { arrivals.load(ordering: .acquiring) }

        func wait() {
            arrivals.add(1, ordering: .releasing)
            lock.withLock {
                while !open { lock.wait() }
            }
        }

        func release() {
            lock.withLock {
                open = true
                lock.broadcast()
            }
        }
    }

    @Test func aThreadIsNamedInProcfsWhileItRunsAndGoneAfterItsJoin() async throws {
        let name = "rt-\(getpid() % 10_000)-named"
        let gate = Gate()
        let seen = Mutex<String?>(nil)
        let thread = try OwnedThread(name: name) {
            seen.withLock { $0 = ThreadName.current() }
            gate.wait()
        }
        #expect(await eventually { gate.arrived == 1 })
        #expect(Self.threadNames().contains(name))
        #expect(seen.withLock { $0 } == name)
        gate.release()
        #expect(await eventually { !Self.threadNames().contains(name) })
        thread.join()  // the thread has ended: returns at once, holding no thread of the pool
    }

    @Test func aLongNameKeepsItsFirstFifteenBytes() async throws {
        let name = "runtime-long-thread-name-\(getpid())"
        let gate = Gate()
        try OwnedThread.detached(name: name) { gate.wait() }
        #expect(await eventually { gate.arrived == 1 })
        let kept = String(name.utf8.prefix(ThreadName.maximumLength)) ?? ""
        #expect(Self.threadNames().contains(kept))
        gate.release()
        #expect(await eventually { !Self.threadNames().contains(kept) })
    }

    @Test func aGroupRunsItsBodyOnEveryThreadAndJoinsThemAll() {
        let runs = Atomic(0)
        var group = OwnedThread.Group(count: 3, name: "rt-group") { runs.add(1, ordering: .relaxed) }
        #expect(group.count == 3)
        group.join()
        #expect(runs.load(ordering: .relaxed) == 3)
    }

    @Test func theIOEngineRunsOnNamedThreadsOfItsOwn() async throws {
        let engine = IOEngine(threadCount: 2, queueCapacity: 4)
        defer { engine.shutdown() }
        let name = try await engine.run { ThreadName.current() }
        #expect(name == "sandbox-io")
    }
}
