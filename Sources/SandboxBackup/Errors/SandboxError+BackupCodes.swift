import SandboxCore

extension SandboxError.Code {
    /// The backup repository's password is wrong (its key file did not open with it), or a
    /// password is missing for an encrypted repository or given for an unencrypted one.
    public static let wrongPassword = SandboxError.Code("wrong-password")
    /// Another backup or prune holds the repository's lock (or, for a prune, a check or restore
    /// holds a shared one; for a check or restore, a prune holds it).
    public static let repositoryLocked = SandboxError.Code("repository-locked")
    /// The directory is not a backup repository (no `config`), or one of a newer format.
    public static let notARepository = SandboxError.Code("not-a-repository")
    /// An object a snapshot needs (a blob, a tree, an index) is missing or damaged.
    public static let repositoryDamaged = SandboxError.Code("repository-damaged")
    /// An app held a file the backup reads (its preferences' lock, its database) for longer than
    /// the backup waits (``SandboxBackup/BackupOptions/lockTimeout``): the item is left out and the
    /// snapshot marked incomplete.
    public static let itemLocked = SandboxError.Code("item-locked")
}

extension SandboxError.Code {
    /// The repository's object store (an S3 endpoint) did not answer, or kept failing, after the
    /// bounded retries.
    public static let repositoryUnreachable = SandboxError.Code("repository-unreachable")
}

extension SandboxError.Code {
    /// An Xcode container package (`.xcappdata`) is not one `sandbox import` takes: no
    /// `AppDataInfo.plist` or `AppData`, a container folder that is not a folder, a link out of
    /// `AppData`, a hard link, a FIFO, socket or device, or more items or bytes than the import's
    /// limits. Nothing was changed.
    public static let invalidPackage = SandboxError.Code("invalid-package")
}

extension SandboxError.Code {
    /// An iOS backup folder (as Finder and iTunes write, `Manifest.db` and the files at
    /// `<first two hex digits>/<fileID>`) is not one `sandbox import --ios-backup` takes: no
    /// `Manifest.plist` or `Manifest.db`, a `Manifest.db` that is not SQLite or is past the
    /// limits, a row whose relative path is empty, absolute, holds `..` or is not UTF-8, whose
    /// fileID is not the SHA-1 of its domain and path, whose `MBFile` archive is damaged or names
    /// a FIFO, socket or device, whose file is missing or of another size, or a symlink leading
    /// out of the domain. Nothing was changed.
    public static let invalidIOSBackup = SandboxError.Code("invalid-ios-backup")
    /// The iOS backup folder is encrypted (`IsEncrypted` in its `Manifest.plist`): its files open
    /// only with the backup's password. Nothing was changed.
    public static let encryptedIOSBackup = SandboxError.Code("encrypted-ios-backup")
    /// An encrypted iOS backup folder cannot be decrypted: its keybag is truncated, malformed or
    /// asks for more work than the reader allows, a class key does not unwrap although others do, a
    /// key is of the wrong length, or a file's padding or size does not match its record. The
    /// message names the backup folder and the file (its fileID).
    public static let iosBackupDamaged = SandboxError.Code("ios-backup-damaged")
}
