import Logging
import SandboxTransfer
import Synchronization

/// Counts what `sandboxd`'s connections hold against its ``ConnectionLimits``: connections in all
/// and per process, bytes of frames being received, bytes of answers queued. One for the daemon,
/// shared by the connections (each through its ``ConnectionSlot``); decisions are taken under a
/// lock, closing and logging happen outside it.
final class ConnectionGate: Sendable {
    let limits: ConnectionLimits
    private let logger: Logger
    private let state: Mutex<State>

    private struct State: Sendable {
        var nextID = 1
        var open: [Int: Entry] = [:]
        var perProcess: [Int32: Int] = [:]
        var received: BytePool
        var queued: BytePool
        var log = RateLimitedLog()
    }

    private struct Entry: Sendable {
        var pid: Int32
        var close: @Sendable () -> Void
        /// Closed to make room for others (or because it held too much): nothing more is counted.
        var dropped = false
    }

    init(limits: ConnectionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
        state = Mutex(State(received: BytePool(limits.receivePool), queued: BytePool(limits.outboxPool)))
    }

    /// The number of connections open.
    var openCount: Int { state.withLock { $0.open.count } }

    /// Admits a new connection from `credentials`' process, or returns `nil` (and logs why, at a
    /// limited rate) when the daemon or that process has as many connections as allowed: the
    /// caller closes it at once. `close` closes the connection when it is dropped later.
    func enter(_ credentials: PeerCredentials, close: @escaping @Sendable () -> Void) -> ConnectionSlot? {
        let (id, message): (Int?, String?) = state.withLock { state in
            let fromProcess = state.perProcess[credentials.pid, default: 0]
            let refusal: String? =
                if state.open.count >= limits.maximumConnections {
                    "\(state.open.count) connections are open, the most allowed"
                } else if fromProcess >= limits.maximumConnectionsPerProcess {
                    "it has \(fromProcess) connections open, the most allowed for one process"
                } else { nil }
            if let refusal {
                return (nil, state.log.admit("refused a connection from pid \(credentials.pid): \(refusal)", at: .now))
            }
            let id = state.nextID
            state.nextID += 1
            state.open[id] = Entry(pid: credentials.pid, close: close)
            state.perProcess[credentials.pid] = fromProcess + 1
            return (id, nil)
        }
        if let message { logger.warning("\(message)") }
        return id.map { ConnectionSlot(id: $0, pid: credentials.pid, gate: self) }
    }

    /// Forgets connection `id`: its bytes and its place are free.
    func leave(_ id: Int) {
        state.withLock { state in
            guard let entry = state.open.removeValue(forKey: id) else { return }
            state.received.removeAll(of: id)
            state.queued.removeAll(of: id)
            let remaining = state.perProcess[entry.pid, default: 1] - 1
            state.perProcess[entry.pid] = remaining > 0 ? remaining : nil
        }
    }

    /// Which of the two pools a request counts against.
    enum Pool: Sendable {
        case received, queued

        var noun: String {
            switch self {
            case .received: "bytes of frames being received"
            case .queued: "bytes of answers the client has not read"
            }
        }
    }

    /// Sets (`.received`) or adds to (`.queued`) the bytes connection `id` holds. Connections
    /// evicted to make room are closed; returns the reason when this one is refused (it has been
    /// marked dropped and closed, and the reason logged).
    func request(_ bytes: Int, of pool: Pool, for id: Int, adding: Bool) -> String? {
        let (evicted, refusal, messages): ([@Sendable () -> Void], String?, [String]) = state.withLock { state in
            guard let entry = state.open[id], !entry.dropped else { return ([], "the connection was dropped", []) }
            var poolState = pool == .received ? state.received : state.queued
            let outcome = adding ? poolState.add(bytes, to: id) : poolState.resize(id, to: bytes)
            var closers: [@Sendable () -> Void] = []
            var messages: [String] = []
            var refusal: String?
            switch outcome {
            case .granted(let evicted):
                for other in evicted {
                    guard var dropped = state.open[other] else { continue }
                    dropped.dropped = true
                    state.open[other] = dropped
                    closers.append(dropped.close)
                    if let message = state.log.admit(
                        "dropped the connection of pid \(dropped.pid): it held the most \(pool.noun) when the budget of \(poolState.limits.budget) (beyond \(poolState.limits.allowance) a connection) was spent",
                        at: .now)
                    {
                        messages.append(message)
                    }
                }
            case .overMaximum(let holding):
                refusal = "it would hold \(holding) \(pool.noun), more than the \(poolState.limits.maximum) allowed"
            case .overBudget(let holding):
                refusal =
                    "it would hold \(holding) \(pool.noun), the most of all, and the budget of \(poolState.limits.budget) (beyond \(poolState.limits.allowance) a connection) is spent"
            }
            if pool == .received { state.received = poolState } else { state.queued = poolState }
            if let refusal {
                state.open[id]?.dropped = true
                closers.append(entry.close)
                if let message = state.log.admit("dropped the connection of pid \(entry.pid): \(refusal)", at: .now) {
                    messages.append(message)
                }
            }
            return (closers, refusal, messages)
        }
        for message in messages { logger.warning("\(message)") }
        for close in evicted { close() }
        return refusal
    }

    /// Takes `bytes` off the answers connection `id` has queued: they were written.
    func written(_ bytes: Int, for id: Int) {
        state.withLock { $0.queued.remove(bytes, from: id) }
    }

    /// Logs `message` about connection `pid`, at a limited rate.
    func log(_ message: String) {
        guard let message = state.withLock({ $0.log.admit(message, at: .now) }) else { return }
        logger.warning("\(message)")
    }
}
