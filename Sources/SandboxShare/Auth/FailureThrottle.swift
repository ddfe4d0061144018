/// Slows down guessing: counts failed logins per client address and, once it reaches the
/// allowance, refuses every request from that client for a time that doubles with each further
/// failure (so after 10 failures the 11th request is answered 429).
///
/// Only failures are counted — Finder and Windows send hundreds of authenticated requests, which
/// must never be limited. A success forgives the client's past failures. The table holds at most
/// ``maximumClients`` addresses; when full, the entry whose block ended longest ago is forgotten,
/// so an attacker spraying addresses cannot grow memory.
///
/// A value type with the time passed in: the policy is unit-tested without clocks or sockets.
package struct FailureThrottle: Sendable {
    /// Failures that block a client: the last of them starts the first block.
    package static let allowance = 10
    /// The first block's length; each further failure doubles it.
    package static let firstBlock: Duration = .seconds(1)
    /// The longest block.
    package static let longestBlock: Duration = .seconds(15 * 60)
    /// Most client addresses remembered.
    package static let maximumClients = 10_000

    private struct Record: Sendable {
        var failures = 0
        var blockedUntil: ContinuousClock.Instant?
    }

    private var records: [String: Record] = [:]

    package init() {}

    /// How long `client` must still wait, or `nil` when it may try.
    package func blockRemaining(for client: String, now: ContinuousClock.Instant) -> Duration? {
        guard let until = records[client]?.blockedUntil, until > now else { return nil }
        return until - now
    }

    /// Records a failed login from `client`.
    ///
    /// - Returns: the block it starts, or `nil` while the client is below its allowance.
    @discardableResult
    package mutating func recordFailure(from client: String, now: ContinuousClock.Instant) -> Duration? {
        if records[client] == nil, records.count >= Self.maximumClients { evictOne(now: now) }
        var record = records[client, default: Record()]
        record.failures += 1
        defer { records[client] = record }
        let excess = record.failures - Self.allowance + 1
        guard excess > 0 else { return nil }
        let block = min(Self.firstBlock * (1 << min(excess - 1, 20)), Self.longestBlock)
        record.blockedUntil = now + block
        return block
    }

    /// Records a successful login from `client`: its failures are forgotten.
    package mutating func recordSuccess(from client: String) {
        if records[client] != nil { records[client] = nil }
    }

    /// How many failures `client` has to its name.
    package func failures(of client: String) -> Int { records[client]?.failures ?? 0 }

    private mutating func evictOne(now: ContinuousClock.Instant) {
        let victim = records.min { ($0.value.blockedUntil ?? now) < ($1.value.blockedUntil ?? now) }
        if let victim { records[victim.key] = nil }
    }
}
