import Dispatch
import Glibc
import Synchronization

/// Passes the signals a launcher receives (SIGINT, SIGTERM, SIGHUP, SIGQUIT) on to the app it
/// started, instead of ending the launcher: the app runs in a session of its own, so a terminal's
/// Ctrl-C reaches only the launcher.
///
/// Make it before starting the app: a signal that arrives before ``forward(to:)`` is held and
/// delivered then. Signals are caught by Dispatch sources on a queue of their own, never on the
/// cooperative pool.
public final class SignalForwarder: Sendable {
    /// The signals forwarded.
    public static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private struct State {
        var target: AppProcess?
        var pending: [Int32] = []
    }

    private let state = Mutex(State())
    /// Dispatch sources are thread-safe; they are only set up here and cancelled in `deinit`.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    /// Starts catching ``forwarded``: from now on they no longer end this process.
    public init() {
        let queue = DispatchQueue(label: "sandbox-run-signals")
        sources = Self.forwarded.map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        var set = sigset_t()
        sigemptyset(&set)
        for number in Self.forwarded { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for (source, number) in zip(sources, Self.forwarded) {
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
        }
    }

    deinit {
        for source in sources { source.cancel() }
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
