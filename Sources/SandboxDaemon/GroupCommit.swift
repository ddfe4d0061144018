import GRDB
import SandboxCore
import SandboxTransfer
import Synchronization

/// Group commit for the daemon's queue: the steps the daemon asks for while a commit runs are
/// collected and committed together in the next transaction, and each step's completion runs
/// once its transaction has committed, in the order the steps were asked for.
///
/// One writer drains the steps (one job at a time on the I/O engine's threads, never on the daemon
/// actor or the cooperative pool): whatever arrived while the previous transaction ran goes into
/// the next. A
/// burst of 1,000 submitted tasks and their events then costs a few commits instead of ~6 each
/// (BENCHMARKS.md, issue 13). What the protocol promises holds because a completion is where the
/// daemon sends: an event reaches the app only after the transaction that queued it committed, an
/// acknowledgement deletes exactly the events up to its sequence (a second one deletes nothing),
/// and a kill loses only steps whose completion never ran — nothing the app was told.
///
/// Each step runs in a savepoint of its own: a step that fails rolls back alone and gets its
/// error; a transaction that cannot commit fails every step of the batch.
///
/// Steps without statements (``after(_:)``: a progress event, an answer) keep their place in the
/// order too; with nothing pending they run at once.
final class GroupCommit: Sendable {
    private struct Step: Sendable {
        /// Runs the step's statements in the batch's transaction; `nil` for a step without any.
        var run: (@Sendable (Database) -> Void)?
        /// Runs after the transaction, with its failure if it did not commit.
        var finish: @Sendable (SandboxError?) -> Void
    }

    private struct State: Sendable {
        var steps: [Step] = []
        /// Whether the writer is draining (a batch is committing or its completions running).
        var draining = false
        var commits = 0
    }

    private let database: DatabaseQueue
    private let state = Mutex(State())
    private let engine: IOEngine

    /// A group commit into `database`, its transactions run on `engine`'s threads.
    init(database: DatabaseQueue, engine: IOEngine = .shared) {
        self.database = database
        self.engine = engine
    }

    /// How many transactions the writer committed (tests compare it with the steps asked for).
    var commitCount: Int { state.withLock { $0.commits } }

    /// Runs `body` in the next batch's transaction, then `completion` with its result once the
    /// transaction committed (or with the failure: the step's own, rolled back alone, or the
    /// commit's).
    func commit<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (Database) throws -> T,
        then completion: @escaping @Sendable (Result<T, SandboxError>) -> Void = { _ in }
    ) {
        let result = StepResult<T>()
        let run: @Sendable (Database) -> Void = { db in
            do {
                var value: T?
                try db.inSavepoint {
                    value = try body(db)
                    return .commit
                }
                result.value = value.map { .success($0) }
            } catch {
                result.value = .failure(
                    SandboxError(
                        .corrupt, "sandboxd could not \(what) in its queue: \(error).", underlying: .wrapping(error)))
            }
        }
        enqueue(
            Step(run: run) { failure in
                if let failure {
                    completion(.failure(failure))
                } else {
                    completion(
                        result.value ?? .failure(SandboxError(.corrupt, "sandboxd could not \(what) in its queue.")))
                }
            })
    }

    /// Runs `body` after every step asked for before it has finished: at once when none is pending.
    func after(_ body: @escaping @Sendable () -> Void) {
        enqueue(Step(run: nil) { _ in body() })
    }

    /// Returns when every step asked for before it has finished.
    func flush() async {
        await withCheckedContinuation { continuation in after { continuation.resume() } }
    }

    private func enqueue(_ step: Step) {
        let (runNow, startDrain) = state.withLock { state -> (Bool, Bool) in
            if !state.draining && state.steps.isEmpty && step.run == nil { return (true, false) }
            state.steps.append(step)
            if state.draining { return (false, false) }
            state.draining = true
            return (false, true)
        }
        if runNow { step.finish(nil) }
        if startDrain { engine.schedule({ self.drain() }, reject: { self.abandon($0) }) }
    }

    /// The engine shut down before the writer could run: every pending step fails with its error
    /// (nothing was committed).
    private func abandon(_ error: SandboxError) {
        let steps = state.withLock { state in
            let steps = state.steps
            state.steps = []
            state.draining = false
            return steps
        }
        for step in steps { step.finish(error) }
    }

    /// The writer, one engine job at a time: commits batch after batch until no step is left.
    private func drain() {
        while true {
            let steps = state.withLock { state in
                let steps = state.steps
                state.steps = []
                if steps.isEmpty { state.draining = false }
                return steps
            }
            guard !steps.isEmpty else { return }
            var failure: SandboxError?
            let statements = steps.compactMap(\.run)
            if !statements.isEmpty {
                do {
                    try database.write { db in
                        for run in statements { run(db) }
                    }
                    state.withLock { $0.commits += 1 }
                } catch {
                    failure = SandboxError(
                        .corrupt, "sandboxd could not commit \(statements.count) changes to its queue: \(error).",
                        underlying: .wrapping(error))
                }
            }
            for step in steps { step.finish(failure) }
        }
    }
}

/// A step's result, written by its statements and read by its completion — both by the writer,
/// one after the other, never at once.
private final class StepResult<T: Sendable>: @unchecked Sendable {
    var value: Result<T, SandboxError>?
}
