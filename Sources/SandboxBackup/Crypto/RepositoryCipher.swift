import Crypto
import Foundation
import SandboxCore

/// How a repository's objects are sealed and named.
///
/// - Unencrypted: objects are stored as they are and a blob is named by the SHA-256 of its bytes.
/// - Encrypted: every blob, tree, manifest, index and snapshot is sealed with AES-256-GCM under the
///   repository's master key (a random 96-bit nonce each; `nonce ‖ ciphertext ‖ tag`), and a blob
///   is named by HMAC-SHA256 of its plaintext under a second key, so names reveal nothing of the
///   contents (restic's choice too). The `config`, which must stay readable without the password,
///   is authenticated by HMAC-SHA256 under a third key, derived from the master key by HKDF.
public struct RepositoryCipher: Sendable {
    let encryptionKey: SymmetricKey?
    let namingKey: SymmetricKey?
    let configKey: SymmetricKey?

    /// The cipher of an unencrypted repository.
    public static let plain = RepositoryCipher(encryptionKey: nil, namingKey: nil, configKey: nil)

    /// The cipher of the master key `master` (64 bytes: encryption key, then naming key).
    init(master: [UInt8]) {
        encryptionKey = SymmetricKey(data: master[0..<32])
        namingKey = SymmetricKey(data: master[32..<64])
        configKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: master[0..<64]), info: Array("sandbox-backup config".utf8),
            outputByteCount: 32)
    }

    private init(encryptionKey: SymmetricKey?, namingKey: SymmetricKey?, configKey: SymmetricKey?) {
        self.encryptionKey = encryptionKey
        self.namingKey = namingKey
        self.configKey = configKey
    }

    /// The ``RepositoryConfig/authentication`` of `config` (its other fields), or `nil` unencrypted.
    func authentication(of config: RepositoryConfig) -> String? {
        configKey.map { Hex.string(HMAC<SHA256>.authenticationCode(for: config.canonicalBytes, using: $0)) }
    }

    /// Whether objects are sealed (AES-GCM) rather than stored as they are.
    public var isEncrypted: Bool { encryptionKey != nil }

    /// The name of a blob holding `bytes`: lowercase hex.
    func blobID(of bytes: UnsafeRawBufferPointer) -> String {
        if let namingKey {
            return Hex.string(HMAC<SHA256>.authenticationCode(for: bytes, using: namingKey))
        }
        return Hex.string(SHA256.hash(data: bytes))
    }

    /// `bytes` as stored.
    func seal(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) -> [UInt8] {
        guard let encryptionKey else { return Array(bytes) }
        do {
            guard let combined = try AES.GCM.seal(bytes, using: encryptionKey).combined else {
                throw SandboxError(.unknown, "AES-GCM gave no combined output.")
            }
            return Array(combined)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.unknown, "AES-GCM sealing failed: \(error).")
        }
    }

    /// The plaintext of an object as stored, authenticated.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when it fails authentication
    ///   (damaged, truncated, or sealed under another key). swift-crypto on Linux reports a failed
    ///   tag as `underlyingCoreCryptoError`, not `authenticationFailure`: any error means damage.
    func open(_ stored: [UInt8], name: String) throws(SandboxError) -> [UInt8] {
        guard let encryptionKey else { return stored }
        do {
            let box = try AES.GCM.SealedBox(combined: stored)
            return Array(try AES.GCM.open(box, using: encryptionKey))
        } catch {
            throw SandboxError(
                .repositoryDamaged,
                "The repository object '\(name)' fails its authentication check: it is damaged or truncated. Check the repository, reading its data, to see what it affects.",
                path: name)
        }
    }
}
