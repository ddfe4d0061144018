import NIOCore
import SandboxStore
import SandboxTransfer

/// One connection's place in the ``ConnectionGate``: what it may hold, and the deadline of its
/// hello. Leave it (``leave()``) when the connection ends.
final class ConnectionSlot: Sendable {
    let id: Int
    let pid: Int32
    let gate: ConnectionGate

    init(id: Int, pid: Int32, gate: ConnectionGate) {
        self.id = id
        self.pid = pid
        self.gate = gate
    }

    var limits: ConnectionLimits { gate.limits }

    /// Records that the connection holds `bytes` of frames not yet complete (a frame counts the
    /// bytes that arrived, not its declared length).
    ///
    /// - Throws: `too-large` when it may not (the connection is being closed).
    func receiving(_ bytes: Int) throws(SandboxError) {
        if let refusal = gate.request(bytes, of: .received, for: id, adding: false) {
            throw SandboxError(.tooLarge, "sandboxd closes this connection: \(refusal).")
        }
    }

    /// Counts an answer of `bytes` queued for the client; `false` when the connection may not
    /// hold it (the reason is logged and the connection is being closed).
    func queue(_ bytes: Int) -> Bool { gate.request(bytes, of: .queued, for: id, adding: true) == nil }

    /// Takes `bytes` of written answers off the count.
    func written(_ bytes: Int) { gate.written(bytes, for: id) }

    /// Closes `channel` unless the connection is admitted within ``ConnectionLimits/helloTimeout``
    /// (cancel the result then), logging why.
    func helloDeadline(on channel: any Channel) -> Scheduled<Void> {
        let (gate, pid, timeout) = (gate, pid, limits.helloTimeout)
        return channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            gate.log("closed the connection of pid \(pid): no hello within \(timeout)")
            channel.close(promise: nil)
        }
    }

    /// Frees the connection's place and bytes.
    func leave() { gate.leave(id) }
}
