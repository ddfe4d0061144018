import Glibc
import Synchronization

/// What a ``WorkerPool``'s thread does next, as its ``WorkerPoolState`` decides.
package enum WorkerStep<Work> {
    /// Do this outside the lock, then hand the outcome to ``WorkerPoolState/record(_:)``.
    case perform(Work)
    /// Nothing to do yet: wait until the state changes.
    case wait
    /// Nothing left, ever: end the thread.
    case finish
}

/// The state a ``WorkerPool``'s threads share with its owner, changed only under the pool's lock.
/// Its type (not its values) crosses to the pool's threads, hence `SendableMetatype`.
package protocol WorkerPoolState: SendableMetatype {
    associatedtype Work
    associatedtype Outcome

    /// Takes the next piece of work (a thread asks when it is free).
    mutating func next() -> WorkerStep<Work>

    /// Takes in what a piece of work came to.
    mutating func record(_ outcome: Outcome)
}

/// A few threads of our own (``OwnedThread``) that take work from shared state guarded by one
/// ``ConditionLock``: the one worker pool of the package, beneath a backup's blob writers and a
/// restore's blob readers and file writers.
///
/// The state decides what is taken and when a thread waits (a bound on what waits ahead of the
/// owner is back-pressure: the threads stop taking work, the owner stops giving it). The owner
/// reads and changes the state with ``withState(until:_:)``, waiting on the same condition.
/// ``stop()`` ends the threads — work not yet taken is never started — and returns only once every
/// thread has left its loop; a pool must be stopped before it is released.
///
/// The waits are on threads that wait only for each other: the owner's (a restore's thread, never
/// one of Swift's cooperative pool) and the pool's own.
package final class WorkerPool<State: WorkerPoolState>: @unchecked Sendable {
    // State guarded by `condition`.
    private let condition = ConditionLock()
    private var state: State
    private var stopping = false
    private var running: Int

    private let perform: (State.Work) -> State.Outcome

    /// Starts `threads` threads (none when there will be no work) named `name-0`, `name-1`… taking
    /// work from `state` and doing it with `perform`, which runs outside the lock on several
    /// threads at once. Fewer start when the system has no more threads to give (as in the I/O
    /// engine, one is enough to make progress).
    package init(
        _ state: State, threads: Int, name: String,
        perform: @escaping @Sendable (State.Work) -> State.Outcome
    ) {
        self.state = state
        self.perform = perform
        running = max(0, threads)
        let recorder = StartedThreads.current
        for index in 0..<running {
            do {
                try OwnedThread.detached(name: "\(name)-\(index)") { [self] in
                    recorder?.recordCurrentThread()
                    work()
                }
            } catch {
                condition.withLock { running -= 1 }
            }
        }
    }

    /// Waits until `condition` holds of the state, then calls `body` with it; wakes the threads
    /// afterwards, as `body` may have changed what they wait for.
    package func withState<Result, Failure: Error>(
        until condition: (State) -> Bool = { _ in true },
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        self.condition.lock()
        defer {
            self.condition.broadcast()
            self.condition.unlock()
        }
        while !condition(state) { self.condition.wait() }
        return try body(&state)
    }

    /// Ends the threads — work not taken is dropped — and waits until every one has left.
    package func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        defer {
            running -= 1
            condition.broadcast()
            condition.unlock()
        }
        while !stopping {
            switch state.next() {
            case .wait:
                condition.wait()
            case .finish:
                return
            case .perform(let work):
                condition.unlock()
                let outcome = perform(work)
                condition.lock()
                state.record(outcome)
                condition.broadcast()
            }
        }
    }
}

/// The kernel thread ids of ``WorkerPool`` threads started while it is ``current``: for tests,
/// which check that a pool's threads have ended.
package final class StartedThreads: Sendable {
    /// The recorder of the threads pools start now.
    @TaskLocal package static var current: StartedThreads?

    private let ids = Mutex<[pid_t]>([])

    /// An empty recorder.
    package init() {}

    /// Records the calling thread's id, read from `/proc/thread-self` (a link to `PID/task/TID`).
    package func recordCurrentThread() {
        var target = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &target, target.count - 1)
        guard length > 0,
            let id = pid_t(
                String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/")
                    .last ?? "")
        else {
            preconditionFailure("/proc/thread-self cannot be read: \(errno)")
        }
        ids.withLock { $0.append(id) }
    }

    /// The threads recorded so far.
    package var all: [pid_t] { ids.withLock { $0 } }
}
