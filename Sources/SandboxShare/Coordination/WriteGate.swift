import Sandbox
import SandboxCore
import Synchronization

/// Admits the share's changes (WebDAV's PUT, DELETE, MKCOL, COPY, MOVE, PROPPATCH, a LOCK that
/// creates a file; the page's uploads, new folders, moves and deletions), and stops admitting
/// them while a lifecycle operation on the app asks the share to let go of its container
/// (``ShareCoordinator``): reads go on, changes are answered 503 with `Retry-After: 1`.
///
/// Each admitted change holds a ``Ticket`` until it is answered. Letting go waits (bounded) for
/// the changes in flight (``drain(until:)``); those still running at the deadline are *cut*: an
/// upload stops at its next piece of body and publishes nothing, and no cut change is answered
/// with a success, since what it did lands in a container the operation replaces or removes.
final class WriteGate: Sendable {
    /// One admitted change, until it is answered.
    struct Ticket: Sendable {
        /// The generation the change was admitted in: each cut starts a new one.
        fileprivate let generation: Int
    }

    private struct State {
        /// The operation the share let go for (or is letting go for); `nil` while changes are taken.
        var pausedFor: CoordinatedOperation?
        var generation = 0
        /// Changes in flight per generation: only the current one is waited for.
        var inFlight: [Int: Int] = [:]
        /// The operation of the latest cut.
        var lastCut: CoordinatedOperation?
    }

    private let state = Mutex(State())

    /// Admits a change, which holds the ticket until it is answered (``leave(_:)``).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/unavailable`` (with `Retry-After: 1`) while the
    ///   share has let go of the container, or is letting go.
    func admit() throws(SandboxError) -> Ticket {
        let admitted = state.withLock { state -> Result<Ticket, SandboxError> in
            if let operation = state.pausedFor { return .failure(Self.paused(for: operation)) }
            state.inFlight[state.generation, default: 0] += 1
            return .success(Ticket(generation: state.generation))
        }
        return try admitted.get()
    }

    /// The change of `ticket` was answered.
    func leave(_ ticket: Ticket) {
        state.withLock { state in
            let left = (state.inFlight[ticket.generation] ?? 1) - 1
            state.inFlight[ticket.generation] = left > 0 ? left : nil
        }
    }

    /// Refuses a change that was cut while it ran.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/unavailable`` when the share let go of the
    ///   container after admitting it.
    func check(_ ticket: Ticket) throws(SandboxError) {
        let cut = state.withLock { state in
            ticket.generation == state.generation ? nil : Self.cut(for: state.lastCut)
        }
        if let cut { throw cut }
    }

    /// Admits a change, runs it, and answers it only if it was not cut meanwhile.
    ///
    /// - Throws: `body`'s error; ``SandboxCore/SandboxError/Code/unavailable`` as ``admit()`` and
    ///   ``check(_:)`` do.
    func admitting<T>(_ body: (Ticket) async throws(SandboxError) -> T) async throws(SandboxError) -> T {
        let ticket = try admit()
        defer { leave(ticket) }
        let result = try await body(ticket)
        try check(ticket)
        return result
    }

    /// Stops admitting changes: the share is about to let go of the container for `operation`.
    func pause(for operation: CoordinatedOperation) {
        state.withLock { $0.pausedFor = operation }
    }

    /// Admits changes again.
    func resume() {
        state.withLock { $0.pausedFor = nil }
    }

    /// Waits until the changes in flight were answered, or until `deadline`; then cuts those
    /// still running (``check(_:)`` refuses them from then on). Blocks the calling thread (the
    /// share's presenter thread, ``ShareCoordinator``): never call it on the cooperative pool.
    ///
    /// - Returns: how many changes were cut.
    func drain(until deadline: ContinuousClock.Instant) -> Int {
        _ = BoundedPoll.until(deadline) { state.withLock { $0.inFlight[$0.generation] == nil } }
        return state.withLock { state in
            guard let running = state.inFlight[state.generation] else { return 0 }
            state.generation += 1
            state.lastCut = state.pausedFor
            return running
        }
    }

    private static func paused(for operation: CoordinatedOperation) -> SandboxError {
        var error = SandboxError(
            .unavailable,
            "The app's container is being \(operation.participle): the share takes no changes until it is done; "
                + "nothing was changed. Retry in a moment (reading goes on).")
        error.retryAfter = .seconds(1)
        return error
    }

    private static func cut(for operation: CoordinatedOperation?) -> SandboxError {
        var error = SandboxError(
            .unavailable,
            "The app's container was \(operation?.participle ?? "replaced") before this change ended: it was cut, "
                + "and nothing of it is kept. Retry it.")
        error.retryAfter = .seconds(1)
        return error
    }
}

extension CoordinatedOperation {
    /// "restored", "uninstalled", …: for the share's messages.
    var participle: String {
        switch self {
        case .restore: "restored"
        case .update: "updated"
        case .uninstall: "uninstalled"
        case .restart: "restarted"
        case .purge: "purged"
        case .lock: "locked"
        case .backup: "backed up"
        }
    }
}
