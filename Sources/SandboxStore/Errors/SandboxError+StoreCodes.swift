import Sandbox

/// The codes of the store's own failures: property lists, archives, preferences, the keychain,
/// databases and Data Protection. A failure of the file system beneath keeps the core's code
/// (`not-found` is `not-found` at every layer); the store's own are added to ``/SandboxCore/SandboxError/Code``
/// from here.
extension SandboxError.Code {
    /// The file describes more than the reading limits allow (``PropertyListLimits``): values
    /// that expand past the byte budget, or nesting past the depth limit; or a body larger than a
    /// download or a share accepts. The file is left as it was.
    public static let tooLarge = Self("too-large")
    /// A name (a database, a key, a keychain account) is not acceptable.
    public static let invalidName = Self("invalid-name")
    /// A value cannot be stored or parsed as the type asked for.
    public static let invalidValue = Self("invalid-value")
    /// The file holds a valid property list, but not of the type asked for.
    public static let typeMismatch = Self("type-mismatch")
    /// The value cannot be encoded (e.g. a bare number as the top level of a property list).
    public static let encodingFailed = Self("encoding-failed")
    /// An archive was written by a newer version of the code than this one knows.
    public static let newerVersion = Self("newer-version")
    /// A keyed archive's object graph holds a cycle (an object that contains itself, directly or
    /// further down) where a value was asked for: a value cannot hold itself. The graph itself
    /// (``KeyedArchive``) reads. The file is left as it was.
    public static let cyclicReference = Self("cyclic-reference")
    /// An older archive could not be migrated: no migration hook, or the hook failed.
    public static let migrationFailed = Self("migration-failed")
    /// Encrypted data failed to open: it was tampered with, swapped, or made with another
    /// device's key.
    public static let authenticationFailed = Self("authentication-failed")
    /// The device key (`Device/device.key`) is missing while keychains made with it exist: a new
    /// key would orphan their items, so none is made. Restore the key from a backup.
    public static let deviceKeyMissing = Self("device-key-missing")
    /// A keychain is older than the one this device last wrote (restored from an old backup,
    /// or copied back): it is refused, and left as it was.
    public static let rolledBack = Self("rolled-back")
    /// SQLite reported an error.
    public static let database = Self("database")
    /// A protected file or keychain item's class key is not available: the device is locked
    /// (``ProtectionClass/complete``, `whenUnlocked` items) or has not been unlocked since the
    /// last restart (``ProtectionClass/untilFirstUserAuthentication``). Unlock with the passcode.
    public static let protectedDataUnavailable = Self("protected-data-unavailable")
    /// The passcode given is not the device's. Each failure adds to the back-off.
    public static let passcodeIncorrect = Self("passcode-incorrect")
    /// Too many wrong passcodes: another try is refused until the back-off delay has passed.
    public static let passcodeBackoff = Self("passcode-backoff")
}
