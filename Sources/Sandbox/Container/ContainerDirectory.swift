import SandboxCore

/// The directories of an app's containers, with their iOS rules.
public enum ContainerDirectory: String, Sendable, Hashable, CaseIterable, Codable {
    /// The data container's root (`NSHomeDirectory()`).
    case home
    /// `<Name>.app` in the bundle container: read-only, signed.
    case bundle
    case documents
    /// `Documents/Inbox`: where other apps deliver documents ("Open In…").
    case inbox
    case library
    case preferences
    case applicationSupport = "application-support"
    case caches
    /// `tmp` (`NSTemporaryDirectory()`).
    case tmp

    /// The location inside the data container, or `nil` for the bundle, which lives in the bundle
    /// container.
    public var path: ContainerPath? {
        switch self {
        case .home: .root
        case .bundle: nil
        case .documents: ContainerPath(constant: "Documents")
        case .inbox: ContainerPath(constant: "Documents/Inbox")
        case .library: ContainerPath(constant: "Library")
        case .preferences: ContainerPath(constant: "Library/Preferences")
        case .applicationSupport: ContainerPath(constant: "Library/Application Support")
        case .caches: ContainerPath(constant: "Library/Caches")
        case .tmp: ContainerPath(constant: "tmp")
        }
    }

    /// The directories a new data container is created with, parents first.
    static let layout: [ContainerDirectory] = [
        .documents, .inbox, .library, .preferences, .applicationSupport, .caches, .tmp,
    ]

    /// The rules of the directory, as iOS documents them.
    public var policy: DirectoryPolicy {
        switch self {
        case .bundle:
            DirectoryPolicy(
                isBackedUp: false, update: .replaced, isPurgeable: false, isClearedAtRestart: false,
                appAccess: .readOnly)
        case .home, .library:
            DirectoryPolicy(
                isBackedUp: true, update: .kept, isPurgeable: false, isClearedAtRestart: false, appAccess: .readWrite)
        case .documents:
            DirectoryPolicy(
                isBackedUp: true, update: .kept, isPurgeable: false, isClearedAtRestart: false, appAccess: .readWrite)
        case .inbox:
            DirectoryPolicy(
                isBackedUp: true, update: .kept, isPurgeable: false, isClearedAtRestart: false,
                appAccess: .readAndDelete)
        case .preferences:
            DirectoryPolicy(
                isBackedUp: true, update: .kept, isPurgeable: false, isClearedAtRestart: false,
                appAccess: .preferencesAPI)
        case .applicationSupport:
            DirectoryPolicy(
                isBackedUp: true, update: .notGuaranteed, isPurgeable: false, isClearedAtRestart: false,
                appAccess: .readWrite)
        case .caches:
            DirectoryPolicy(
                isBackedUp: false, update: .notGuaranteed, isPurgeable: true, isClearedAtRestart: false,
                appAccess: .readWrite)
        case .tmp:
            DirectoryPolicy(
                isBackedUp: false, update: .notGuaranteed, isPurgeable: true, isClearedAtRestart: true,
                appAccess: .readWrite)
        }
    }
}
