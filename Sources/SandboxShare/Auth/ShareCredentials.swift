import Crypto

/// The user name and password a client must send with HTTP Basic: the share's user and the
/// pairing code.
public struct ShareCredentials: Sendable {
    /// The user name, e.g. `sandbox`.
    public let user: String
    /// The password: the pairing code.
    public let password: String
    /// The digest every attempt is compared with, computed once.
    private let digest: SHA256.Digest

    /// Credentials for `user` with `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
        digest = Self.digest(user: user, password: password)
    }

    /// Whether `user` and `password` are these credentials, compared in constant time: both sides
    /// are hashed first (so the lengths compared are equal) and the digests compared without an
    /// early exit, so the time taken says nothing about how much of a guess was right.
    package func match(user: String, password: String) -> Bool {
        let given = Self.digest(user: user, password: password)
        var difference: UInt8 = 0
        for (a, b) in zip(digest, given) { difference |= a ^ b }
        return difference == 0
    }

    /// The user's length, the user and the password, hashed: the length keeps `ab` + `c` apart
    /// from `a` + `bc`.
    private static func digest(user: String, password: String) -> SHA256.Digest {
        SHA256.hash(data: Array("\(user.utf8.count):\(user)\(password)".utf8))
    }
}
