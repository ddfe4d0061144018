import Dispatch
import Glibc

/// Signals caught instead of taking their default action (ending the process): the one way the
/// package's programs handle a signal themselves (`sandbox watch` and `sandbox download` stop on
/// SIGINT and SIGTERM, `sandbox run` passes its signals on to the app).
///
/// Each signal is ignored (`SIG_IGN`) and watched by a `DispatchSource` on a serial queue of its
/// own — the right tool here: Dispatch reads the signals with `signalfd`-like machinery off the
/// cooperative pool, and the handler runs on that queue, never in a signal handler. A signal
/// that arrives before ``onSignal(_:)`` is held by the source and delivered then.
package final class CaughtSignals: Sendable {
    /// The signals that ask a program to stop: SIGINT (a terminal's Ctrl-C) and SIGTERM.
    package static let stopping: [Int32] = [SIGINT, SIGTERM]

    /// The signals caught, in the order given.
    package let numbers: [Int32]
    /// Dispatch sources are thread-safe; they are set up here, resumed once by `onSignal` and
    /// cancelled in `deinit`.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    /// Starts catching `numbers` (they no longer end this process), on a queue named `label`.
    package init(_ numbers: [Int32], label: String) {
        let queue = DispatchQueue(label: label)
        self.numbers = numbers
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        Self.unblock(numbers)
    }

    deinit {
        for source in sources { source.cancel() }
    }

    /// Calls `handler` with each caught signal's number, on the signals' queue. Call it once.
    package func onSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        for (source, number) in zip(sources, numbers) {
            source.setEventHandler { handler(number) }
            source.resume()
        }
    }

    /// Unblocks `numbers` on the calling thread. A parent may have started us with them blocked
    /// (threads of a Swift program do), and then no handler — ours, or swift-service-lifecycle's —
    /// would ever see them.
    package static func unblock(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
