import SandboxTransfer

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
        if case .terminated = continuation.yield(frame) { slot.written(frame.count) }
        return true
    }

    /// A frame of `count` bytes was written.
    func written(_ count: Int) { slot.written(count) }

    /// Ends the frames after what is queued.
    func finish() { continuation.finish() }
}
