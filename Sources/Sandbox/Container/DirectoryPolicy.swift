/// The rules iOS documents for a container directory.
public struct DirectoryPolicy: Sendable, Hashable, Codable {
    /// What an app update does to the directory.
    public enum UpdateBehavior: String, Sendable, Hashable, Codable {
        /// Kept as it was.
        case kept
        /// Replaced by the new version (the bundle).
        case replaced
        /// Usually kept, but the system may clear it.
        case notGuaranteed = "not-guaranteed"
    }

    /// What the app may do there through the library.
    public enum AppAccess: String, Sendable, Hashable, Codable {
        /// Read and write freely.
        case readWrite = "read-write"
        /// The Inbox: other apps deliver, the app reads and deletes.
        case readAndDelete = "read-and-delete"
        /// Preferences: only through the preferences API.
        case preferencesAPI = "preferences-api"
        /// The signed bundle.
        case readOnly = "read-only"
    }

    /// Included in backups.
    public var isBackedUp: Bool
    /// What an update does to it.
    public var update: UpdateBehavior
    /// Emptied when storage runs low (``SandboxHome/purge(bytes:)``).
    public var isPurgeable: Bool
    /// Emptied at device restart (``SandboxHome/restart()``).
    public var isClearedAtRestart: Bool
    /// What the app may do there.
    public var appAccess: AppAccess

    /// A policy with the given rules.
    public init(
        isBackedUp: Bool, update: UpdateBehavior, isPurgeable: Bool, isClearedAtRestart: Bool, appAccess: AppAccess
    ) {
        self.isBackedUp = isBackedUp
        self.update = update
        self.isPurgeable = isPurgeable
        self.isClearedAtRestart = isClearedAtRestart
        self.appAccess = appAccess
    }
}
