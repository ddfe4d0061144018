import Crypto
import Foundation

/// How a protected file's key is wrapped in its header.
///
/// For every class but ``ProtectionClass/completeUnlessOpen``: sealed (AES-256-GCM, 60 bytes) with
/// the class key. For ``ProtectionClass/completeUnlessOpen``, as iOS does: a fresh Curve25519 key
/// pair per file, whose private half is agreed with the class's public key and thrown away; the
/// header keeps the ephemeral public key (32 bytes) and the file key sealed with the agreed key.
/// Writing needs only the class's public key, so it works while the device is locked; reading
/// needs the class's private key, which locking forgets.
enum FileKeyWrapping {
    static func wrappedSize(for protection: ProtectionClass) -> Int {
        protection == .completeUnlessOpen ? 32 + 60 : 60
    }

    static func wrap(
        _ fileKey: SymmetricKey, with key: SymmetricKey, authenticating header: [UInt8]
    ) throws(SandboxError) -> [UInt8] {
        do {
            guard
                let combined = try AES.GCM.seal(
                    fileKey.withUnsafeBytes { Array($0) }, using: key, authenticating: header
                ).combined
            else { throw SandboxError(.encodingFailed, "AES-GCM gave no combined box for a file key.") }
            return Array(combined)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.encodingFailed, "A file key could not be sealed: \(error).")
        }
    }

    static func wrap(
        _ fileKey: SymmetricKey, toPublicKey recipient: Curve25519.KeyAgreement.PublicKey,
        authenticating header: [UInt8]
    ) throws(SandboxError) -> [UInt8] {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        do {
            let shared = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
            let key = agreedKey(shared, ephemeral: ephemeral.publicKey, recipient: recipient)
            return Array(ephemeral.publicKey.rawRepresentation) + (try wrap(fileKey, with: key, authenticating: header))
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.encodingFailed, "The file key could not be agreed: \(error).")
        }
    }

    /// The file key of `header`; `nil` when it fails authentication (a damaged or spliced header).
    static func unwrap(_ header: ProtectedFileFormat.Header, classKey: [UInt8]) -> SymmetricKey? {
        do {
            var sealed = header.wrappedKey[...]
            var key = SymmetricKey(data: classKey)
            if header.protection == .completeUnlessOpen {
                let own = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: classKey)
                let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: sealed.prefix(32))
                key = agreedKey(
                    try own.sharedSecretFromKeyAgreement(with: ephemeral), ephemeral: ephemeral,
                    recipient: own.publicKey)
                sealed = sealed.dropFirst(32)
            }
            let fileKey = try AES.GCM.open(
                AES.GCM.SealedBox(combined: sealed), using: key, authenticating: header.fixedPart)
            return fileKey.count == 32 ? SymmetricKey(data: fileKey) : nil
        } catch {
            return nil
        }
    }

    private static func agreedKey(
        _ shared: SharedSecret, ephemeral: Curve25519.KeyAgreement.PublicKey,
        recipient: Curve25519.KeyAgreement.PublicKey
    ) -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: ephemeral.rawRepresentation + recipient.rawRepresentation,
            sharedInfo: Array("sandbox complete-unless-open file key".utf8), outputByteCount: 32)
    }
}
