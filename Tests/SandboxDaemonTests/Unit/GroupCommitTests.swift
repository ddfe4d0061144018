import Dispatch
import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import Synchronization
import Testing

@testable import SandboxDaemon

/// The queue's group commit: what is asked for while a commit runs goes into one transaction, each
/// completion runs after its data is committed (another connection reads it), in order, and a
/// failing step rolls back alone.
@Suite struct GroupCommitTests {
    private let key = SessionKey(app: "com.example.a", session: "s")

    @Test func stepsAskedForDuringACommitShareTheNextTransaction() throws {
        try ScratchDirectory.with(prefix: "sbd-group") { scratch in
            let path = scratch.appending("queue.sqlite")
            let queue = try EventQueue(path: path)
            let reader = try EventQueue(path: path)  // another connection: sees committed data only
            let (entered, gate, done) = (
                DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
            )
            // Holds the writer inside a first transaction while the other steps are asked for.
            queue.writes.commit("hold the writer") { _ in
                entered.signal()
                gate.wait()
            }
            entered.wait()
            let seen = Mutex<[(sequence: Int64, committed: Int)]>([])
            let key = key
            for task in 1...100 {
                let event = BackgroundEventRecord(taskID: task, kind: .completed)
                let body = try EventQueue.json(event, "event")
                queue.writes.commit("queue an event", { db in try EventQueue.append(db, event, body: body, for: key) })
                {
                    result in
                    let committed = (try? reader.queuedEventCount()) ?? -1
                    seen.withLock { $0.append(((try? result.get().sequence) ?? -1, committed)) }
                }
            }
            queue.writes.after { done.signal() }
            gate.signal()
            done.wait()
            let results = seen.withLock { $0 }
            #expect(results.count == 100)
            #expect(
                results.map(\.sequence) == results.map(\.sequence).sorted() && results.allSatisfy { $0.sequence > 0 })
            #expect(results.allSatisfy { $0.committed == 100 }, "each completion runs after its batch committed")
            #expect(queue.writes.commitCount == 2, "100 steps asked for during a commit take one more transaction")
        }
    }

    @Test func aFailingStepRollsBackAloneAndGetsItsError() async throws {
        try await ScratchDirectory.with(prefix: "sbd-group") { scratch in
            let queue = try EventQueue(path: scratch.appending("queue.sqlite"))
            let key = key
            let failure = Mutex<SandboxError?>(nil)
            let event = BackgroundEventRecord(taskID: 1, kind: .completed)
            let body = try EventQueue.json(event, "event")
            queue.writes.commit("queue an event") { db in _ = try EventQueue.append(db, event, body: body, for: key) }
            queue.writes.commit(
                "queue an event, then fail",
                { db in
                    _ = try EventQueue.append(db, event, body: body, for: key)
                    // The same task twice: its primary key makes the second insert fail.
                    for _ in 1...2 {
                        try EventQueue.insertTask(db, key, 1, url: "http://h/x", body: "{}", underlying: nil)
                    }
                }
            ) { result in
                if case .failure(let error) = result { failure.withLock { $0 = error } }
            }
            await queue.writes.flush()
            #expect(try queue.pending(for: key).count == 1, "the failing step's event is rolled back, not the other")
            let error = try #require(failure.withLock { $0 })
            #expect(error.code == .corrupt && error.message.contains("queue an event, then fail"))
        }
    }

    /// The writer runs on the runtime's I/O engine (its threads are named `sandbox-io`), not on a
    /// queue of its own: a step's statements and its completion both run there.
    @Test func theWriterRunsOnTheEngine() async throws {
        try await ScratchDirectory.with(prefix: "sbd-group") { scratch in
            let queue = try EventQueue(path: scratch.appending("queue.sqlite"))
            let threads = Mutex<[String]>([])
            queue.writes.commit("note the thread", { _ in threads.withLock { $0.append(ThreadName.current() ?? "?") } })
            { _ in
                threads.withLock { $0.append(ThreadName.current() ?? "?") }
            }
            await queue.writes.flush()
            #expect(threads.withLock { $0 } == ["sandbox-io", "sandbox-io"])
        }
    }
}
