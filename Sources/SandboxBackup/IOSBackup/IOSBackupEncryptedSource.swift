import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// An encrypted iOS backup folder as an import's ``IOSBackupFileSource``: its `Manifest.db`
/// decrypted into the import's scratch folder, each file decrypted with its MBFile's
/// `EncryptionKey` (``IOSEncryptedBackup``). Everything else an import does — the rows' checks,
/// the tree, the exchange — is the same as for an unencrypted folder.
///
/// Opening it runs PBKDF2 at the keybag's counts (seconds with iOS's): only on a thread of one's own.
struct IOSBackupEncryptedSource: IOSBackupFileSource {
    let folder: IOSBackupFolder
    let backup: IOSEncryptedBackup
    var displayName: String { folder.displayName }

    /// Opens the encrypted backup folder at `hostPath` and unlocks it with `password`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidIOSBackup`` for a folder that is not a
    ///   backup; ``SandboxCore/SandboxError/Code/wrongPassword`` naming the folder when the password
    ///   does not open it, or it is not encrypted; the other errors of
    ///   ``IOSEncryptedBackup/init(folder:password:)``.
    init(opening hostPath: String, password: [UInt8]) throws(SandboxError) {
        folder = try IOSBackupFolder(opening: hostPath, acceptingEncrypted: true)
        backup = try IOSEncryptedBackup(folder: hostPath, password: password)
    }

    func copyManifestDatabase(
        to name: ContainerPath, in scratch: ConfinedRoot, maximumBytes: Int64
    )
        throws(SandboxError)
    {
        let path = IOSBackupFolder.manifestDatabase
        let shown = folder.root.displayPath(of: path)
        let file: OpenFile
        do {
            file = try folder.root.openFile(forReadingAt: path)
        } catch  where error.code != .tooManyOpenFiles {
            throw IOSBackupProblem.refusal(shown, "cannot be opened (\(error.message))")
        }
        defer { try? file.close() }  // read-only: a failed close loses nothing
        let output = try scratch.openFileDescriptor(at: name, creatingWith: FilePermissions(rawValue: 0o600))
        try IOSBackupFolder.writing(output, shown: scratch.displayPath(of: name)) { () throws(SandboxError) in
            try file.withUnsafeDescriptor { (fd) throws(SandboxError) in
                var info = stat()
                _ = try syscall("fstat", path: shown) { fstat(fd.rawValue, &info) }
                guard Int64(info.st_size) <= maximumBytes + 16 else {  // at most a block of padding
                    throw IOSBackupProblem.refusal(
                        shown, "is \(info.st_size) bytes, past the limit of \(maximumBytes)", code: .tooLarge)
                }
                _ = try IOSBackupFileDecryption.decrypt(
                    from: fd.rawValue, to: output.rawValue, key: backup.manifestKey, size: nil, name: "Manifest.db",
                    path: shown)
            }
        }
    }

    /// Decrypts the file of `fileID`; a row without an `EncryptionKey` is an empty file only when
    /// its size is 0 (iOS stores no data for it).
    func copyFile(
        _ fileID: String, size: Int64, encryptionKey: [UInt8]?, to output: CInt, shown: String
    ) throws(SandboxError) {
        guard let key = encryptionKey else {
            guard size == 0 else {
                throw IOSBackupProblem.refusal(
                    shown, "is listed as \(size) bytes but has no EncryptionKey to decrypt them",
                    code: .iosBackupDamaged)
            }
            return
        }
        let written: Int64
        do {
            written = try backup.decryptFile(
                fileID: fileID, encryptionKey: key, size: size, to: FileDescriptor(rawValue: output))
        } catch  where error.code == .notFound || error.code == .notADirectory || error.code == .symlinkLoop {
            throw IOSBackupProblem.refusal(
                shown, "has no readable file at '\(displayName)/\(fileID.prefix(2))/\(fileID)'")
        } catch  where error.code == .iosBackupDamaged {
            var refusal = IOSBackupProblem.refusal(
                shown, "does not decrypt: its data or its EncryptionKey is damaged", code: .iosBackupDamaged)
            refusal.underlying = .error(error)  // the component's words: which check failed, the fileID
            throw refusal
        }
        guard written == size else {
            throw IOSBackupProblem.refusal(
                shown, "decrypted to \(written) bytes, not the \(size) it is listed as", code: .iosBackupDamaged)
        }
    }
}
