import Sandbox

extension StoreError {
    /// A failure's kind, spelled in kebab-case like the core's codes. The store adds its own codes
    /// to the core's, which it keeps for file-system failures.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable spelling used in messages and JSON output.
        public let rawValue: String

        private init(rawValue: String) { self.rawValue = rawValue }

        /// The core's code, carried up unchanged.
        public init(_ code: SandboxError.Code) { self.rawValue = code.description }

        /// The stable, kebab-case spelling used in messages and JSON output.
        public var description: String { rawValue }

        /// The file is not a property list, an archive or a keychain, or it is truncated or damaged.
        /// The file is left as it was.
        public static let corrupt = Code(.corrupt)
        /// The file describes more than the reading limits allow (``PropertyListLimits``): values
        /// that expand past the byte budget, or nesting past the depth limit. The file is left as
        /// it was.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The item, key or file does not exist.
        public static let notFound = Code(.notFound)
        /// A name (a database, a key, a keychain account) is not acceptable.
        public static let invalidName = Code(rawValue: "invalid-name")
        /// A value cannot be stored or parsed as the type asked for.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// The file holds a valid property list, but not of the type asked for.
        public static let typeMismatch = Code(rawValue: "type-mismatch")
        /// The value cannot be encoded (e.g. a bare number as the top level of a property list).
        public static let encodingFailed = Code(rawValue: "encoding-failed")
        /// An archive was written by a newer version of the code than this one knows.
        public static let newerVersion = Code(rawValue: "newer-version")
        /// An older archive could not be migrated: no migration hook, or the hook failed.
        public static let migrationFailed = Code(rawValue: "migration-failed")
        /// Encrypted data failed to open: it was tampered with, swapped, or made with another
        /// device's key.
        public static let authenticationFailed = Code(rawValue: "authentication-failed")
        /// The device key (`Device/device.key`) is missing while keychains made with it exist: a new
        /// key would orphan their items, so none is made. Restore the key from a backup.
        public static let deviceKeyMissing = Code(rawValue: "device-key-missing")
        /// A keychain is older than the one this device last wrote (restored from an old backup,
        /// or copied back): it is refused, and left as it was.
        public static let rolledBack = Code(rawValue: "rolled-back")
        /// The container's policy forbids this writer there (Library/Preferences is written only
        /// through the preferences API; the Inbox is read-and-delete).
        public static let readOnly = Code(.readOnly)
        /// SQLite reported an error.
        public static let database = Code(rawValue: "database")
        /// A protected file or keychain item's class key is not available: the device is locked
        /// (``ProtectionClass/complete``, `whenUnlocked` items) or has not been unlocked since the
        /// last restart (``ProtectionClass/untilFirstUserAuthentication``). Unlock with the passcode.
        public static let protectedDataUnavailable = Code(rawValue: "protected-data-unavailable")
        /// The passcode given is not the device's. Each failure adds to the back-off.
        public static let passcodeIncorrect = Code(rawValue: "passcode-incorrect")
        /// Too many wrong passcodes: another try is refused until the back-off delay has passed.
        public static let passcodeBackoff = Code(rawValue: "passcode-backoff")
    }
}
