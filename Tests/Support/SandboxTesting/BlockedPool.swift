import SandboxCore
import Synchronization

/// Tasks that block the threads of Swift's cooperative pool they run on until released (at most
/// 150 s): for tests showing that work does not wait for the pool (the share's file work, a
/// daemon client's hello). Start one `Task.detached { pool.hold() }` per thread of the pool
/// (`ProcessInfo.processInfo.activeProcessorCount`), then wait until they hold, on a thread of
/// your own.
public final class BlockedPool: Sendable {
    private let state = Mutex((held: 0, released: false))

    /// A pool not yet held.
    public init() {}

    /// Blocks the calling thread until ``release()``: the point of the test, a pool thread that
    /// does not return.
    public func hold() {
        state.withLock { $0.held += 1 }
        _ = BoundedPoll.until(.now + .seconds(150)) { state.withLock { $0.released } }
    }

    /// Waits (on the caller's own thread) until `count` tasks hold their threads, at most 90 s
    /// (the other tests of the process may hold the pool's threads meanwhile).
    public func waitUntilHeld(_ count: Int) -> Bool {
        BoundedPoll.until(.now + .seconds(90)) { state.withLock { $0.held >= count } }
    }

    /// Lets every ``hold()`` return.
    public func release() { state.withLock { $0.released = true } }
}
