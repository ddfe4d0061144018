import Glibc
import SandboxCore
import Synchronization

/// Passes the signals a launcher receives (SIGINT, SIGTERM, SIGHUP, SIGQUIT) on to the app it
/// started, instead of ending the launcher: the app runs in a session of its own, so a terminal's
/// Ctrl-C reaches only the launcher.
///
/// Make it before starting the app: a signal that arrives before ``forward(to:)`` is held and
/// delivered then. Signals are caught as the package's programs catch them (Dispatch sources on a
/// queue of their own, never on the cooperative pool).
public final class SignalForwarder: Sendable {
    /// The signals forwarded.
    public static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private struct State {
        var target: AppProcess?
        var pending: [Int32] = []
    }

    private let state = Mutex(State())
    private let signals: CaughtSignals

    /// Starts catching ``forwarded``: from now on they no longer end this process.
    public init() {
        signals = CaughtSignals(Self.forwarded, label: "sandbox-run-signals")
        signals.onSignal { [weak self] number in self?.received(number) }
    }

    /// Sends the signals caught so far, and every later one, to `process`.
    public func forward(to process: AppProcess) {
        let pending = state.withLock { state in
            state.target = process
            defer { state.pending = [] }
            return state.pending
        }
        for number in pending { process.signal(number) }
    }

    private func received(_ number: Int32) {
        let target = state.withLock { state in
            if state.target == nil { state.pending.append(number) }
            return state.target
        }
        target?.signal(number)
    }
}
