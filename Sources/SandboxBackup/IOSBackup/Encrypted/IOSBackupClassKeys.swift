import Crypto
import SandboxCore

/// The class keys of an unlocked encrypted iOS backup (``IOSBackupKeyBag/unlock(password:folder:)``),
/// which unwrap the keys of `Manifest.db` and of each file.
public struct IOSBackupClassKeys: Sendable {
    let keys: [UInt32: SymmetricKey]
    /// The backup folder, named in errors.
    public let folder: String

    /// The protection classes whose keys are here.
    public var protectionClasses: [UInt32] { keys.keys.sorted() }

    /// Unwraps a file's key (or `Manifest.db`'s) with its class's key.
    ///
    /// - Parameters:
    ///   - key: the wrapped key (``IOSBackupWrappedKey``).
    ///   - name: what it belongs to, for errors (`file 3fec…` or `Manifest.db`).
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` when the keybag has no key for
    ///   its class or the key does not unwrap, naming `name` and the folder.
    public func unwrap(_ key: IOSBackupWrappedKey, for name: String) throws(SandboxError) -> SymmetricKey {
        guard let classKey = keys[key.protectionClass] else {
            throw SandboxError(
                .iosBackupDamaged,
                "The key of \(name) in the iOS backup '\(folder)' is wrapped with protection class \(key.protectionClass), which the backup's keybag does not hold; the backup is damaged.",
                path: folder)
        }
        do {
            return try AES.KeyWrap.unwrap(key.wrappedKey, using: classKey)
        } catch {
            throw SandboxError(
                .iosBackupDamaged,
                "The key of \(name) in the iOS backup '\(folder)' does not unwrap with its protection class \(key.protectionClass)'s key; the backup is damaged.",
                path: folder, underlying: .detail(String(describing: error)))
        }
    }
}
