import NIOCore
import Sandbox
import Synchronization

/// The parts of one response body on their way to the disk: handed over on the HTTP client's event
/// loop (``AttemptReceiver``), written in order by the ``BodyWriter`` one engine job at a time, so
/// no event loop ever waits for a disk.
///
/// Bounded: while more than ``limit`` bytes wait for the disk, the part just handed over is
/// acknowledged only when the writer has brought them back under it — the client reads nothing
/// more from the connection meanwhile. With a rate limit the limit is 0: each part is acknowledged
/// once written and its bytes are due, as before the pipe. The first failure of a write is kept:
/// the next part is refused with it, the parts still waiting are dropped, and the run reads it at
/// the end (``failure``) after waiting for the writer to stop (``idle()``).
final class BodyPipe: Sendable {
    /// The bytes that may wait for the disk before the client stops reading: 1 MiB.
    static let defaultLimit = 1 << 20

    private struct State {
        var writer: BodyWriter?
        /// Makes the writer: the writer's first job, before the first part.
        var makeWriter: (@Sendable () throws(AttemptFailure) -> BodyWriter)?
        var parts = CircularBuffer<ByteBuffer>()
        var queuedBytes = 0
        var draining = false
        var failure: AttemptFailure?
        /// The acknowledgement of a part held back until the queue is under the limit.
        var held: EventLoopPromise<Void>?
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    let limit: Int
    private let engine: IOEngine
    private let state = Mutex(State())

    init(limit: Int, engine: IOEngine = .shared) {
        self.limit = limit
        self.engine = engine
    }

    /// The writer, once the head made one; its final state after ``idle()``.
    var writer: BodyWriter? { state.withLock { $0.writer } }

    /// The first write that failed.
    var failure: AttemptFailure? { state.withLock { $0.failure } }

    /// Starts the writer: `makeWriter` (which prepares the partial file and the checkpoint) runs
    /// on the engine first, then the parts handed over meanwhile and later go to the writer it
    /// makes. Called once, before the first part; a failure of `makeWriter` is the pipe's.
    func start(_ makeWriter: @escaping @Sendable () throws(AttemptFailure) -> BodyWriter) {
        state.withLock { state in
            state.makeWriter = makeWriter
            state.draining = true
        }
        engine.schedule({ self.drain() }, reject: { self.stop(failing: .fatal($0)) })
    }

    /// Hands over a part: the returned future completes when the client may read the next one.
    func push(_ part: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let (acknowledgement, startWriter) = state.withLock { state -> (EventLoopFuture<Void>, Bool) in
            if let failure = state.failure { return (eventLoop.makeFailedFuture(failure), false) }
            state.parts.append(part)
            state.queuedBytes += part.readableBytes
            let start = !state.draining
            state.draining = true
            guard state.queuedBytes > limit else { return (eventLoop.makeSucceededVoidFuture(), start) }
            let held = eventLoop.makePromise(of: Void.self)
            state.held = held
            return (held.futureResult, start)
        }
        if startWriter {
            engine.schedule({ self.drain() }, reject: { self.stop(failing: .fatal($0)) })
        }
        return acknowledgement
    }

    /// Returns when the writer has written every part handed over (or stopped at a failure).
    func idle() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if !state.draining { return true }
                state.idle.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// On the engine: writes the waiting parts in order until none is left.
    private func drain() {
        if let makeWriter = state.withLock({ $0.makeWriter }) {
            let made = Result { () throws(AttemptFailure) in try makeWriter() }
            state.withLock { state in
                state.makeWriter = nil
                switch made {
                case .success(let writer): state.writer = writer
                case .failure(let failure): state.failure = failure
                }
            }
        }
        while true {
            let next = state.withLock { state -> (ByteBuffer, BodyWriter)? in
                guard state.failure == nil, let writer = state.writer, let part = state.parts.popFirst() else {
                    return nil
                }
                return (part, writer)
            }
            guard let (part, writer) = next else {
                // Stops only if no part arrived since: one that did (the pipe was still draining,
                // so nobody else started a writer) is written now.
                if stop(failing: nil) { return } else { continue }
            }
            var updated = writer
            let written = Result { () throws(AttemptFailure) in try updated.receive(part) }
            let held = state.withLock { state -> EventLoopPromise<Void>? in
                state.writer = updated
                state.queuedBytes -= part.readableBytes
                if case .failure(let failure) = written { state.failure = failure }
                guard state.failure != nil || state.queuedBytes <= limit, let held = state.held else { return nil }
                state.held = nil
                return held
            }
            guard let held else { continue }
            switch written {
            case .failure(let failure):
                held.fail(failure)
            case .success(let due?):
                // The rate limit: the next part is read when the bytes so far are due.
                held.futureResult.eventLoop.scheduleTask(in: TimeAmount(due - ContinuousClock.now)) {
                    held.succeed()
                }
            case .success(nil):
                held.succeed()
            }
        }
    }

    /// Stops the writer, unless (without `failure`) a part is waiting for it: then returns false.
    /// With a failure (the first write's, or the engine's refusal) the waiting parts are dropped
    /// and a held acknowledgement fails with it.
    @discardableResult
    private func stop(failing failure: AttemptFailure?) -> Bool {
        typealias Waiting = (EventLoopPromise<Void>?, [CheckedContinuation<Void, Never>], AttemptFailure?)
        let waiting = state.withLock { state -> Waiting? in
            if let failure, state.failure == nil { state.failure = failure }
            if state.failure == nil, state.writer != nil, !state.parts.isEmpty { return nil }
            state.makeWriter = nil
            state.parts.removeAll()
            state.queuedBytes = 0
            state.draining = false
            defer {
                state.held = nil
                state.idle = []
            }
            return (state.held, state.idle, state.failure)
        }
        guard let (held, idle, failure) = waiting else { return false }
        if let held {
            if let failure { held.fail(failure) } else { held.succeed() }
        }
        for continuation in idle { continuation.resume() }
        return true
    }
}
