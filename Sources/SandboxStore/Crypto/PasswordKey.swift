import Crypto
import Foundation
import Sandbox
import _CryptoExtras

/// How a password or passcode becomes a key (a backup repository's master key, the device's
/// passcode classes): **scrypt** (`_CryptoExtras`
/// `KDF.Scrypt`, memory-hard, as restic uses), N = 2^15, r = 8, p = 1 — 32 MiB and about 0.1 s a
/// try here. The parameters and salt are stored with what the key opens; the password never is.
public struct PasswordKeyDerivation: Sendable, Hashable, Codable {
    public var algorithm: String
    public var rounds: Int
    public var blockSize: Int
    public var parallelism: Int
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

    /// The 256-bit key `password` gives.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for parameters this version does not
    ///   accept (another algorithm, or costs out of range: a damaged key file).
    public func deriveKey(from password: [UInt8]) throws(SandboxError) -> SymmetricKey {
        guard algorithm == "scrypt", rounds >= 1 << 10, rounds <= 1 << 22, rounds.nonzeroBitCount == 1,
            (1...32).contains(blockSize), (1...16).contains(parallelism)
        else {
            throw SandboxError(
                .corrupt,
                "The stored key derivation asks for '\(algorithm)' with N=\(rounds), r=\(blockSize), p=\(parallelism), which this version does not accept; the file that holds it is damaged."
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
