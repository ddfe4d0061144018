import Foundation
import Logging
import Sandbox
import Synchronization

/// Where the pairing code is checked, by HTTP Basic (WebDAV) and by the page's login form alike,
/// each behind a failure throttle per client address of its own (a ``Door``).
///
/// Two budgets, not one: failures at one door (a WebDAV client set up with an old code, or guesses)
/// do not lock the owner out of the other. An attacker gets at most twice the guesses per address,
/// which the code's 59 bits do not notice; the login form refuses posts from other sites before
/// they reach the gate (`WebPage`), so no web page can spend its budget.
final class PairingGate: Sendable {
    /// The ways the code comes in, each with its own failure budget.
    enum Door: Sendable, Hashable {
        /// `Authorization: Basic` (WebDAV clients, a browser's own dialog).
        case basic
        /// The page's login form.
        case loginForm
        /// Pairing links, `/.sandbox/pair/<token>`: a token that is not the link's is a failure.
        case pairingLink
    }

    let credentials: ShareCredentials
    private let throttles = Mutex<[Door: FailureThrottle]>([:])
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

    /// Admits the request whose `Authorization` field is `header` from `client` (door ``Door/basic``).
    ///
    /// - Throws: as ``admit(user:password:client:door:now:)``.
    func admit(authorization header: String?, client: String, now: ContinuousClock.Instant) throws(SandboxError) {
        if let header, ConstantTime.equal(header.utf8, expectedHeader) {
            try checkNotBlocked(client, door: .basic, now: now)
            throttles.withLock { $0[.basic]?.recordSuccess(from: client) }
            return
        }
        // Any other spelling (`basic`, extra spaces, another user or code): parsed and checked.
        let given = BasicAuthorization(header: header)
        try admit(user: given?.user, password: given?.password ?? "", client: client, door: .basic, now: now)
    }

    /// Admits the pairing code typed on the login page from `client` (door ``Door/loginForm``).
    ///
    /// - Throws: as ``admit(user:password:client:door:now:)``.
    func admitLoginForm(code: String, client: String, now: ContinuousClock.Instant) throws(SandboxError) {
        try admit(user: credentials.user, password: code, client: client, door: .loginForm, now: now)
    }

    /// Refuses a pairing link from `client` while it is blocked at ``Door/pairingLink``.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/tooManyRequests`` (with `Retry-After`).
    func checkPairingLink(client: String, now: ContinuousClock.Instant) throws(SandboxError) {
        try checkNotBlocked(client, door: .pairingLink, now: now)
    }

    /// Counts a pairing link with a wrong token from `client` at ``Door/pairingLink``.
    func recordPairingLinkFailure(client: String, now: ContinuousClock.Instant) {
        let block = throttles.withLock {
            $0[.pairingLink, default: FailureThrottle()].recordFailure(from: client, now: now)
        }
        if let block {
            logger.warning(
                "Wrong pairing links from \(client): blocked for \(block.seconds) s", metadata: ["client": "\(client)"])
        }
    }

    /// Whether a request from `client` whose `Authorization` field is `header` may be told to send
    /// its body (`100 Continue`): its credentials are right and the client is not blocked. Counts
    /// and forgives nothing (the request itself is admitted later).
    ///
    /// While the client is blocked the answer is `false` whatever the code: the interim answer must
    /// not tell a right guess from a wrong one.
    func invitesBody(authorization header: String?, client: String, now: ContinuousClock.Instant) -> Bool {
        guard throttles.withLock({ $0[.basic]?.blockRemaining(for: client, now: now) }) == nil else { return false }
        if let header, ConstantTime.equal(header.utf8, expectedHeader) { return true }
        guard let given = BasicAuthorization(header: header) else { return false }
        return credentials.match(user: given.user, password: given.password)
    }

    /// Admits `user` with `password` from `client` at `door`, or counts a failure against it there.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/tooManyRequests`` (with `Retry-After`) while the client is
    ///   blocked at `door`, whatever it sends (the code is not even checked); ``SandboxCore/SandboxError/Code/unauthorized``
    ///   for wrong credentials, or none (`user` nil: not counted as a failure, a client's first
    ///   request comes without).
    private func admit(
        user: String?, password: String, client: String, door: Door, now: ContinuousClock.Instant
    ) throws(SandboxError) {
        try checkNotBlocked(client, door: door, now: now)
        guard let user, credentials.match(user: user, password: password) else {
            if user != nil {
                let block = throttles.withLock {
                    $0[door, default: FailureThrottle()].recordFailure(from: client, now: now)
                }
                if let block {
                    logger.warning(
                        "Login failures from \(client) (\(door)): blocked for \(block.seconds) s",
                        metadata: ["client": "\(client)"])
                }
            }
            throw SandboxError(
                .unauthorized, "Log in with the user name and pairing code the share printed when it started.")
        }
        throttles.withLock { $0[door]?.recordSuccess(from: client) }
    }

    /// - Throws: ``SandboxCore/SandboxError/Code/tooManyRequests`` (with `Retry-After`) while `client` is blocked at `door`.
    private func checkNotBlocked(_ client: String, door: Door, now: ContinuousClock.Instant) throws(SandboxError) {
        if let wait = throttles.withLock({ $0[door]?.blockRemaining(for: client, now: now) }) {
            var error = SandboxError(
                .tooManyRequests, "Too many failed logins from \(client); retry in \(wait.seconds) s.")
            error.retryAfter = wait
            throw error
        }
    }
}
