import Foundation
import Logging
import Synchronization

/// Where the pairing code is checked, by HTTP Basic (WebDAV) and by the page's login form alike,
/// behind one failure throttle per client address.
final class PairingGate: Sendable {
    let credentials: ShareCredentials
    private let throttle = Mutex(FailureThrottle())
    private let logger: Logger

    /// `Basic <base64 of user:password>`, the header every client that logged in sends, byte for
    /// byte: compared first, so a request does not decode base64 and hash to be admitted.
    private let expectedHeader: [UInt8]

    init(credentials: ShareCredentials, logger: Logger) {
        self.credentials = credentials
        self.logger = logger
        let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
        expectedHeader = Array("Basic \(token)".utf8)
    }

    /// Admits the request whose `Authorization` field is `header` from `client`.
    ///
    /// - Throws: as ``admit(user:password:client:now:)``.
    func admit(authorization header: String?, client: String, now: ContinuousClock.Instant) throws(ShareError) {
        if let header, Self.equalInConstantTime(Array(header.utf8), expectedHeader) {
            try checkNotBlocked(client, now: now)
            throttle.withLock { $0.recordSuccess(from: client) }
            return
        }
        // Any other spelling (`basic`, extra spaces, another user or code): parsed and checked.
        let given = BasicAuthorization(header: header)
        try admit(user: given?.user, password: given?.password ?? "", client: client, now: now)
    }

    /// Admits `user` with `password` from `client`, or counts a failure against it.
    ///
    /// - Throws: ``ShareError/Code/tooManyRequests`` (with `Retry-After`) while the client is
    ///   blocked, whatever it sends; ``ShareError/Code/unauthorized`` for wrong credentials, or
    ///   none (`user` nil: not counted as a failure, a client's first request comes without).
    func admit(user: String?, password: String, client: String, now: ContinuousClock.Instant) throws(ShareError) {
        try checkNotBlocked(client, now: now)
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

    /// - Throws: ``ShareError/Code/tooManyRequests`` (with `Retry-After`) while `client` is blocked.
    private func checkNotBlocked(_ client: String, now: ContinuousClock.Instant) throws(ShareError) {
        if let wait = throttle.withLock({ $0.blockRemaining(for: client, now: now) }) {
            var error = ShareError(
                .tooManyRequests, "Too many failed logins from \(client); retry in \(wait.seconds) s.")
            error.retryAfter = wait
            throw error
        }
    }

    /// Whether `a` and `b` are equal, in a time that depends only on their lengths.
    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
