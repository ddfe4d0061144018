import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// Where an import reads a backup's manifest and files: an unencrypted folder
/// (``IOSBackupFolder``), or — plugged in the same way — a decrypting reader of an encrypted one.
package protocol IOSBackupFileSource {
    /// The backup as a person names it (its folder's host path).
    var displayName: String { get }
    /// Writes the plain `Manifest.db` (SQLite) to the new file `name` of `scratch`, at most
    /// `maximumBytes`.
    func copyManifestDatabase(
        to name: ContainerPath, in scratch: ConfinedRoot, maximumBytes: Int64)
        throws(SandboxError)
    /// Writes the contents of the file of `fileID` to the open file `output`, refusing (with
    /// ``SandboxCore/SandboxError/Code/invalidIOSBackup``, or
    /// ``SandboxCore/SandboxError/Code/iosBackupDamaged`` for data that does not decrypt) a file
    /// that is missing or that does not hold `size` bytes; `encryptionKey` is the row's MBFile
    /// `EncryptionKey` (`nil` when it has none); `shown` names the item in messages.
    func copyFile(
        _ fileID: String, size: Int64, encryptionKey: [UInt8]?, to output: CInt, shown: String
    ) throws(SandboxError)
}
