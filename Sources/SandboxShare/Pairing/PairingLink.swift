import Crypto
import Synchronization

/// The share's pairing link: its token's SHA-256 (the token itself is not kept), when it stops
/// working, and whether it was used. ``claim(_:now:)`` lets exactly one request through, however
/// many come at once.
final class PairingLink: Sendable {
    /// What a visit of `/.sandbox/pair/<token>` finds.
    enum Outcome: Sendable, Equatable {
        /// The token is this link's, unused and in time: log the browser in.
        case paired
        /// The token is this link's and was used already.
        case used
        /// The token is this link's and its time is up.
        case expired
        /// Not this link's token (a guess, a typo, a link of another run): a failure to count.
        case unknown
    }

    private let digest: [UInt8]
    private let expiry: ContinuousClock.Instant
    private let used = Atomic<Bool>(false)
    /// The SHA-256 fingerprint of the certificate the share serves, shown once paired to compare
    /// with the one the terminal printed; `nil` over plain HTTP.
    let certificateFingerprint: String?

    /// The link of `token`, working for ``PairingToken/lifetime`` from `now`.
    init(token: PairingToken, certificateFingerprint: String?, now: ContinuousClock.Instant = .now) {
        digest = Array(SHA256.hash(data: Array(token.value.utf8)))
        expiry = now + PairingToken.lifetime
        self.certificateFingerprint = certificateFingerprint
    }

    /// Uses the link when `candidate` is its token: ``Outcome/paired`` once, to one caller only.
    func claim(_ candidate: Substring, now: ContinuousClock.Instant = .now) -> Outcome {
        guard PairingToken.isWellFormed(candidate),
            ConstantTime.equal(Array(SHA256.hash(data: Array(candidate.utf8))), digest)
        else { return .unknown }
        if used.load(ordering: .acquiring) { return .used }
        guard now < expiry else { return .expired }
        let (exchanged, _) = used.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        return exchanged ? .paired : .used
    }
}
