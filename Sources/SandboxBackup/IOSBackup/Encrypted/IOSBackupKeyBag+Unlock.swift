import Crypto
import SandboxCore
import _CryptoExtras

extension IOSBackupKeyBag {
    /// The key the backup password gives, as iOS 10.2 and later derive it:
    /// PBKDF2-HMAC-SHA256(password, `DPSL`, `DPIC`), then PBKDF2-HMAC-SHA1 of that (`SALT`,
    /// `ITER`), 32 bytes each.
    ///
    /// Blocks for as long as the rounds take (iOS's 10,000,000 and 10,000: 8.9 s measured on this
    /// project's loaded 2-core build machine): call it on a thread of your own or the I/O engine,
    /// never on the cooperative pool.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/unknown`` if the derivation itself fails.
    public func passwordKey(for password: [UInt8]) throws(SandboxError) -> SymmetricKey {
        do {
            let first = try KDF.Insecure.PBKDF2.deriveKey(
                from: password, salt: dataProtectionSalt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: dataProtectionIterations)
            return try first.withUnsafeBytes { bytes in
                try KDF.Insecure.PBKDF2.deriveKey(
                    from: Array(bytes), salt: salt, using: .insecureSHA1, outputByteCount: 32,
                    unsafeUncheckedRounds: iterations)
            }
        } catch {
            throw SandboxError(.unknown, "PBKDF2 failed: \(error).", underlying: .detail(String(describing: error)))
        }
    }

    /// Unwraps the class keys with the backup password.
    ///
    /// Blocks while the password's key is derived (``passwordKey(for:)``).
    ///
    /// - Parameters:
    ///   - password: the backup password's bytes (UTF-8, as iTunes and Finder take it).
    ///   - folder: the backup folder, for errors.
    /// - Returns: the keys of every class wrapped with the password (`WRAP` bit 2).
    /// - Throws: ``SandboxCore/SandboxError/Code/wrongPassword`` when no class key unwraps (the
    ///   password is not the backup's), naming `folder`;
    ///   ``SandboxCore/SandboxError/Code/iosBackupDamaged`` when some unwrap and another does not
    ///   (its wrapped key fails RFC 3394's integrity check), or no class is wrapped with the password.
    public func unlock(password: [UInt8], folder: String) throws(SandboxError) -> IOSBackupClassKeys {
        try unlock(passwordKey: try passwordKey(for: password), folder: folder)
    }

    /// Unwraps the class keys with the key ``passwordKey(for:)`` gives: see
    /// ``unlock(password:folder:)``.
    public func unlock(passwordKey: SymmetricKey, folder: String) throws(SandboxError) -> IOSBackupClassKeys {
        var keys: [UInt32: SymmetricKey] = [:]
        var failed: [UInt32] = []
        for entry in classes where entry.wrap & 2 != 0 {
            guard let wrapped = entry.wrappedKey else { continue }
            do {
                keys[entry.protectionClass] = try AES.KeyWrap.unwrap(wrapped, using: passwordKey)
            } catch {
                // The one way RFC 3394 unwrapping fails: the integrity check value does not match.
                // Counted, not dropped: all failing is a wrong password, some failing a damaged bag.
                failed.append(entry.protectionClass)
            }
        }
        if keys.isEmpty && !failed.isEmpty {
            throw SandboxError(
                .wrongPassword,
                "The password does not open the encrypted iOS backup '\(folder)': none of its class keys unwraps with it. Give the password chosen when the backup was encrypted.",
                path: folder)
        }
        if let protectionClass = failed.first {
            throw SandboxError(
                .iosBackupDamaged,
                "The key of protection class \(protectionClass) in the keybag of the iOS backup '\(folder)' does not unwrap although the other classes' keys do; the backup's Manifest.plist is damaged.",
                path: folder)
        }
        guard !keys.isEmpty else {
            throw SandboxError(
                .iosBackupDamaged,
                "The keybag of the iOS backup '\(folder)' has no class key wrapped with the backup password; the backup's Manifest.plist is damaged or was not written by iOS.",
                path: folder)
        }
        return IOSBackupClassKeys(keys: keys, folder: folder)
    }
}
