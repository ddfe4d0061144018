import Logging
import Synchronization

/// Where the pairing code is checked, by HTTP Basic (WebDAV) and by the page's login form alike,
/// behind one failure throttle per client address.
final class PairingGate: Sendable {
    let credentials: ShareCredentials
    private let throttle = Mutex(FailureThrottle())
    private let logger: Logger

    init(credentials: ShareCredentials, logger: Logger) {
        self.credentials = credentials
        self.logger = logger
    }

    /// Admits `user` with `password` from `client`, or counts a failure against it.
    ///
    /// - Throws: ``ShareError/Code/tooManyRequests`` (with `Retry-After`) while the client is
    ///   blocked, whatever it sends; ``ShareError/Code/unauthorized`` for wrong credentials, or
    ///   none (`user` nil: not counted as a failure, a client's first request comes without).
    func admit(user: String?, password: String, client: String, now: ContinuousClock.Instant) throws(ShareError) {
        if let wait = throttle.withLock({ $0.blockRemaining(for: client, now: now) }) {
            var error = ShareError(
                .tooManyRequests, "Too many failed logins from \(client); retry in \(wait.seconds) s.")
            error.retryAfter = wait
            throw error
        }
        guard let user, credentials.match(user: user, password: password) else {
            if user != nil {
                let block = throttle.withLock { $0.recordFailure(from: client, now: now) }
                if let block {
                    logger.warning(
                        "Login failures from \(client): blocked for \(block.seconds) s",
                        metadata: ["client": "\(client)"])
                }
            }
            throw ShareError(.unauthorized, "Log in with the user name and pairing code that `sandbox share` printed.")
        }
        throttle.withLock { $0.recordSuccess(from: client) }
    }
}
