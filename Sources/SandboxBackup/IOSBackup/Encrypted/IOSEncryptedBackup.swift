import Crypto
import Foundation
import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// An encrypted iTunes/Finder backup folder, unlocked with its password: decrypts its
/// `Manifest.db` and its files.
///
/// What the import does with it: ``init(folder:password:)``; ``withDecryptedManifest(_:)`` to
/// read `Manifest.db` as for an unencrypted backup; then, for each file row, the MBFile's
/// `EncryptionKey` bytes and `Size` to ``decryptFile(fileID:encryptionKey:size:to:)``.
///
/// Everything here blocks (PBKDF2 for seconds with iOS's counts, file I/O): call it on a thread of
/// your own or the I/O engine, never on the cooperative pool.
public struct IOSEncryptedBackup: Sendable {
    /// The backup folder.
    public let folder: String
    /// The keybag, as read.
    public let keyBag: IOSBackupKeyBag
    /// The unwrapped class keys.
    public let classKeys: IOSBackupClassKeys
    let manifestKey: SymmetricKey

    /// The largest `Manifest.plist` read: 64 MiB (it carries the apps' icons; tens of KiB to a few
    /// MiB on iOS).
    public static let maximumManifestPropertyListSize = 64 << 20

    /// What `Manifest.plist` says about encryption.
    private struct Manifest: Decodable {
        var isEncrypted: Bool?
        var backupKeyBag: Data?
        var manifestKey: Data?

        enum CodingKeys: String, CodingKey {
            case isEncrypted = "IsEncrypted"
            case backupKeyBag = "BackupKeyBag"
            case manifestKey = "ManifestKey"
        }
    }

    /// Opens the encrypted backup in `folder` with `password`: reads `Manifest.plist`, its keybag
    /// and `ManifestKey`, and unwraps the class keys and `Manifest.db`'s key.
    ///
    /// - Parameters:
    ///   - folder: the backup folder (`Manifest.plist`, `Manifest.db`, `<xx>/<fileID>`).
    ///   - password: the backup password's bytes (UTF-8).
    /// - Throws: ``SandboxCore/SandboxError/Code/wrongPassword`` when the password does not open
    ///   the keybag, or the backup is not encrypted (`IsEncrypted` is not true);
    ///   ``SandboxCore/SandboxError/Code/iosBackupDamaged`` for a keybag, class key or
    ///   `ManifestKey` that is damaged (``IOSBackupKeyBag/init(parsing:path:)``,
    ///   ``IOSBackupKeyBag/unlock(password:folder:)``, ``IOSBackupWrappedKey``) or missing;
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` or `type-mismatch` (the store's code)
    ///   for a `Manifest.plist` that is not a property list of the expected shape; and the errors
    ///   of opening the folder and reading the file (``/SandboxCore/SandboxError/Code/notFound``, …).
    public init(folder: String, password: [UInt8]) throws(SandboxError) {
        let root = try ConfinedRoot(openingDirectoryAt: folder)
        let plistPath = folder + "/Manifest.plist"
        let bytes = try root.readContents(
            of: try ContainerPath("Manifest.plist"), maximumSize: Self.maximumManifestPropertyListSize)
        let manifest = try PropertyList.decode(Manifest.self, from: bytes, path: plistPath)
        guard manifest.isEncrypted == true else {
            throw SandboxError(
                .wrongPassword,
                "The iOS backup '\(folder)' is not encrypted (its Manifest.plist does not say IsEncrypted), so it takes no password; read it without one.",
                path: folder)
        }
        guard let keyBagBytes = manifest.backupKeyBag, let manifestKeyBytes = manifest.manifestKey else {
            throw SandboxError(
                .iosBackupDamaged,
                "The encrypted iOS backup's '\(plistPath)' has no \(manifest.backupKeyBag == nil ? "BackupKeyBag" : "ManifestKey"); the backup is damaged or was not written by iOS 10.2 or later.",
                path: plistPath)
        }
        let keyBag = try IOSBackupKeyBag(parsing: Array(keyBagBytes), path: plistPath)
        let classKeys = try keyBag.unlock(password: password, folder: folder)
        let wrapped = try IOSBackupWrappedKey(
            persistentKey: Array(manifestKeyBytes), name: "The ManifestKey in '\(plistPath)'", path: plistPath)
        self.folder = folder
        self.keyBag = keyBag
        self.classKeys = classKeys
        manifestKey = try classKeys.unwrap(wrapped, for: "Manifest.db")
    }

    /// Decrypts `Manifest.db` into a private scratch folder (0700, in `$TMPDIR`; the file 0600),
    /// runs `body` with the decrypted copy's path (for SQLite, which opens by path), and removes
    /// the folder afterwards, whatever `body` does.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` when `Manifest.db` does not
    ///   decrypt (length, padding); the errors of reading it, of writing the copy, and `body`'s.
    public func withDecryptedManifest<Result>(
        _ body: (String) throws(SandboxError) -> Result
    ) throws(SandboxError) -> Result {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = try ContainerPath("Manifest.db")
        let output = try scratch.root.open(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        let source = try openInBackup("Manifest.db")
        _ = try IOSBackupFileDecryption.decrypt(
            from: source.rawValue, to: output.rawValue, key: manifestKey, size: nil, name: "Manifest.db",
            path: folder + "/Manifest.db")
        return try body(scratch.hostPath("Manifest.db"))
    }

    /// Decrypts one file of the backup, at `<first two hex digits of fileID>/<fileID>`, to
    /// `destination` (written from its current position).
    ///
    /// - Parameters:
    ///   - fileID: the row's `fileID` (40 lowercase hex digits).
    ///   - encryptionKey: the bytes of the MBFile's `EncryptionKey` (its NSData's `NS.data`).
    ///   - size: the MBFile's `Size`; the plaintext is cut there.
    ///   - destination: where the plaintext goes; the caller owns it.
    /// - Returns: the bytes written (`size`).
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` naming the fileID for a
    ///   fileID that is not 40 hex digits, a damaged `EncryptionKey`, a key that does not unwrap,
    ///   wrong padding, or a `size` larger than the data; the errors of opening and reading the
    ///   file (``/SandboxCore/SandboxError/Code/notFound``, …) and of writing `destination`.
    @discardableResult
    public func decryptFile(
        fileID: String, encryptionKey: [UInt8], size: Int64, to destination: FileDescriptor
    ) throws(SandboxError) -> Int64 {
        guard fileID.utf8.count == 40, fileID.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else {
            throw SandboxError(
                .iosBackupDamaged,
                "The iOS backup '\(folder)' lists a file whose fileID '\(fileID)' is not 40 lowercase hex digits; its Manifest.db is damaged.",
                path: folder)
        }
        let relative = "\(fileID.prefix(2))/\(fileID)"
        let name = "file \(fileID)"
        let wrapped = try IOSBackupWrappedKey(
            persistentKey: encryptionKey, name: "The EncryptionKey of \(name)", path: folder + "/" + relative)
        let key = try classKeys.unwrap(wrapped, for: name)
        let source = try openInBackup(relative)
        return try IOSBackupFileDecryption.decrypt(
            from: source.rawValue, to: destination.rawValue, key: key, size: size, name: name,
            path: folder + "/" + relative)
    }

    /// Opens a regular file of the backup for reading, beneath the folder (no link out of it).
    private func openInBackup(_ relative: String) throws(SandboxError) -> OwnedDescriptor {
        let root = try ConfinedRoot(openingDirectoryAt: folder)
        let path = try ContainerPath(relative)
        let file = try root.open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY, followFinalSymlink: false)
        var info = stat()
        _ = try syscall("fstat", path: folder + "/" + relative) { fstat(file.rawValue, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SandboxError(
                .iosBackupDamaged,
                "'\(folder)/\(relative)' is not a regular file; the iOS backup is damaged or was not written by iOS.",
                path: folder + "/" + relative)
        }
        _ = fcntl(file.rawValue, F_SETFL, 0)  // blocking reads again
        return file
    }
}
