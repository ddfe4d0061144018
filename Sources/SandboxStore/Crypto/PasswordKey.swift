import Crypto
import Foundation
import Sandbox
import _CryptoExtras

/// How a password or passcode becomes a key (a backup repository's master key, the device's
/// passcode classes): **scrypt** (`_CryptoExtras`
/// `KDF.Scrypt`, memory-hard, as restic uses), N = 2^15, r = 8, p = 1 — 32 MiB and about 0.1 s a
/// try here. The parameters and salt are stored with what the key opens; the password never is.
public struct PasswordKeyDerivation: Sendable, Hashable, Codable {
    /// The key derivation function; `scrypt` is the only one ``deriveKey(from:)`` accepts.
    public var algorithm: String
    /// scrypt's cost N: a power of two from 2^10 (2^15 in ``standard()``).
    public var rounds: Int
    /// scrypt's block size r, 1…32 (8 in ``standard()``).
    public var blockSize: Int
    /// scrypt's parallelism p, 1…16 (1 in ``standard()``).
    public var parallelism: Int
    /// The random salt, 16…64 bytes (32 in ``standard()``).
    public var salt: Data

    /// scrypt with the standard parameters and a new random salt.
    public static func standard() -> PasswordKeyDerivation {
        var salt = Data(count: 32)
        salt.withUnsafeMutableBytes { buffer in
            var generator = SystemRandomNumberGenerator()
            for index in buffer.indices { buffer[index] = generator.next() }
        }
        return PasswordKeyDerivation(algorithm: "scrypt", rounds: 1 << 15, blockSize: 8, parallelism: 1, salt: salt)
    }

    /// The most memory a stored derivation may ask for: 128·N·r bytes, 256 MiB (8 times the
    /// standard's 32 MiB).
    public static let maximumMemory = 256 << 20
    /// The most work a stored derivation may ask for: N·r·p, 2^21 (8 times the standard's, about
    /// a second here). Parameters are read from a file someone else may have written (a backup
    /// repository's `keys/`), so without this bound one could make a single try take gigabytes
    /// and minutes.
    public static let maximumWork = 1 << 21

    /// The 256-bit key `password` gives.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for parameters this version does not
    ///   accept (another algorithm, a salt not 16…64 bytes, or costs out of range — N a power of
    ///   two ≥ 2^10, at most ``maximumMemory`` and ``maximumWork``: a damaged or hostile key file),
    ///   before any work is done.
    public func deriveKey(from password: [UInt8]) throws(SandboxError) -> SymmetricKey {
        guard algorithm == "scrypt", rounds >= 1 << 10, rounds <= 1 << 22, rounds.nonzeroBitCount == 1,
            (1...32).contains(blockSize), (1...16).contains(parallelism), (16...64).contains(salt.count),
            128 * rounds * blockSize <= Self.maximumMemory, rounds * blockSize * parallelism <= Self.maximumWork
        else {
            throw SandboxError(
                .corrupt,
                "The stored key derivation asks for '\(algorithm)' with N=\(rounds), r=\(blockSize), p=\(parallelism) and a \(salt.count)-byte salt, which this version does not accept (scrypt, N a power of two from 2^10, 128·N·r at most \(Self.maximumMemory >> 20) MiB, N·r·p at most 2^21, a 16…64-byte salt); the file that holds it is damaged or was written by someone else."
            )
        }
        do {
            return try KDF.Scrypt.deriveKey(
                from: password, salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize,
                parallelism: parallelism)
        } catch {
            throw SandboxError(.unknown, "scrypt failed: \(error).")
        }
    }
}
