import SandboxTransfer
import Synchronization

/// What waits to be written to one client: its messages, encoded, counted in bytes against the
/// connection's ``ConnectionSlot`` (per connection and in the daemon's budget). Messages go in
/// without waiting (the connection's writer drains it in order), so the daemon never waits on a
/// slow client; a client that does not read is closed once its queue is past the limits.
final class Outbox: Sendable {
    /// The encoded frames, in order, for the connection's writer; report each one written with
    /// ``written(_:)``.
    let frames: AsyncStream<[UInt8]>
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let slot: ConnectionSlot

    /// The bytes queued and not yet written, whether the frames ended, and who waits for the
    /// queue to drain (``whenDrained(to:_:)``).
    private struct Backlog {
        var bytes = 0
        var ended = false
        var waiters: [(limit: Int, body: @Sendable (Bool) -> Void)] = []
    }

    private let backlog = Mutex(Backlog())

    init(slot: ConnectionSlot) {
        self.slot = slot
        (frames, continuation) = AsyncStream.makeStream(of: [UInt8].self)
    }

    /// Queues `message`; `false` when the connection must be closed instead: its queue would be
    /// past the limits (logged), or the message cannot be encoded (a message past the protocol's
    /// frame size).
    func send(_ message: DaemonMessage) -> Bool {
        let frame: [UInt8]
        do throws(SandboxError) {
            frame = try WireCoding.encode(message)
        } catch {
            slot.gate.log("closed the connection of pid \(slot.pid): an answer could not be sent: \(error)")
            return false
        }
        guard slot.queue(frame.count) else { return false }
        backlog.withLock { $0.bytes += frame.count }
        if case .terminated = continuation.yield(frame) { written(frame.count) }
        return true
    }

    /// A frame of `count` bytes was written.
    func written(_ count: Int) {
        slot.written(count)
        let ready = backlog.withLock { backlog in
            backlog.bytes -= count
            let bytes = backlog.bytes
            let ready = backlog.waiters.filter { $0.limit >= bytes }
            backlog.waiters.removeAll { $0.limit >= bytes }
            return ready
        }
        for waiter in ready { waiter.body(true) }
    }

    /// Runs `body` once at most `limit` bytes wait to be written (at once if so already), with
    /// `true`; with `false` once the frames ended (the connection is closing: nothing more goes out).
    /// The daemon sends a long run of messages (the queued events of a re-attach) a part at a
    /// time through it, so what waits for one client stays bounded whatever the queue holds.
    func whenDrained(to limit: Int, _ body: @escaping @Sendable (Bool) -> Void) {
        let now: Bool? = backlog.withLock { backlog in
            if backlog.ended { return false }
            if backlog.bytes <= limit { return true }
            backlog.waiters.append((limit, body))
            return nil
        }
        if let now { body(now) }
    }

    /// Ends the frames after what is queued.
    func finish() {
        continuation.finish()
        let waiters = backlog.withLock { backlog in
            backlog.ended = true
            defer { backlog.waiters = [] }
            return backlog.waiters
        }
        for waiter in waiters { waiter.body(false) }
    }
}
