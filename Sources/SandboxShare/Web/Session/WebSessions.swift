import Foundation
import SandboxCore
import Synchronization

/// The page's logins: a random session token (the cookie), a random folder (``SessionFolder``, the
/// cookie's `Path`) and a CSRF token per login, held in memory only, so every session ends when
/// the server stops.
///
/// At most ``maximumCount`` sessions are kept (the least recently used one goes first), and one
/// unused for ``idleLimit`` ends.
final class WebSessions: Sendable {
    /// A login.
    struct Session: Sendable {
        /// The name of the session's folder: the page and its requests are under
        /// `/.sandbox/s/<scope>/`, and the cookie is sent there only.
        let scope: String
        /// Sent with every change the page asks for (`X-CSRF-Token`), and only the page knows it.
        let csrfToken: String
        /// Whether it logged in with the pairing code (the owner's browser) rather than with a
        /// pairing link (a paired device): only the owner lists and revokes devices.
        let owner: Bool
        var lastUsed: ContinuousClock.Instant
        /// When it last made a request (the wall clock, for the devices list).
        var lastSeen: Date
    }

    static let maximumCount = 64
    static let idleLimit: Duration = .seconds(12 * 3600)

    private let sessions = Mutex<[String: Session]>([:])

    /// Starts a session.
    ///
    /// - Returns: the session token (for the cookie) and its CSRF token.
    func open(owner: Bool = true, now: ContinuousClock.Instant = .now) -> (token: String, session: Session) {
        let token = Self.randomToken()
        let session = Session(
            scope: Self.randomToken(), csrfToken: Self.randomToken(), owner: owner, lastUsed: now, lastSeen: Date())
        sessions.withLock { sessions in
            if sessions.count >= Self.maximumCount,
                let oldest = sessions.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
            {
                sessions[oldest] = nil
            }
            sessions[token] = session
        }
        return (token, session)
    }

    /// The live session of `token` whose folder is `scope`, marked as used now; `nil` for an
    /// unknown or idle one, or one whose folder is another (a cookie replayed elsewhere).
    func session(for token: String?, in scope: Substring, now: ContinuousClock.Instant = .now) -> Session? {
        guard let token else { return nil }
        return sessions.withLock { sessions -> Session? in
            guard var session = sessions[token], ConstantTime.equal(session.scope.utf8, scope.utf8) else { return nil }
            guard now - session.lastUsed < Self.idleLimit else {
                sessions[token] = nil
                return nil
            }
            session.lastUsed = now
            session.lastSeen = Date()
            sessions[token] = session
            return session
        }
    }

    /// Ends the session of `token`.
    func close(_ token: String) {
        _ = sessions.withLock { $0.removeValue(forKey: token) }
    }

    /// Ends every session whose token `matches` (a device revoked by its token's hash).
    func close(where matches: (String) -> Bool) {
        sessions.withLock { sessions in
            for token in sessions.keys where matches(token) { sessions[token] = nil }
        }
    }

    /// The live sessions' last requests, by `key(token)` (the devices list's token hashes).
    func lastSeen(by key: (String) -> String) -> [String: Date] {
        sessions.withLock { sessions in
            Dictionary(sessions.map { (key($0.key), $0.value.lastSeen) }) { first, _ in first }
        }
    }

    /// 32 random bytes as hex (the system's cryptographic generator: `getrandom`).
    private static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 { withUnsafeBytes(of: (generator.next() as UInt64).littleEndian) { bytes += $0 } }
        return Hex.string(bytes)
    }
}
