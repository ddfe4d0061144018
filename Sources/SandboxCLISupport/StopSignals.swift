import Dispatch
import Glibc

/// SIGINT and SIGTERM, caught on a queue of their own instead of ending the process.
package final class StopSignals {
    private let sources: [any DispatchSourceSignal]

    package init(label: String) {
        let queue = DispatchQueue(label: label)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        Self.unblock()
    }

    /// Unblocks SIGINT and SIGTERM on the calling thread. A parent may have started us with them
    /// blocked (threads of a Swift program do), and then no handler — ours, or swift-service-
    /// lifecycle's — would ever see them.
    package static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    package func onSignal(_ handler: @escaping @Sendable () -> Void) {
        for source in sources {
            source.setEventHandler(handler: handler)
            source.resume()
        }
    }
}
