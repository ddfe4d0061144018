import Sandbox

/// Where one app's keychain lives: in the app's device-data folder, `Device/Apps/<app-id>/`, which
/// is outside its containers and which uninstalling the app removes whole.
///
///     keychain.plist        the items (``KeychainFile``)
///     keychain.lock         the writers' lock and the readers' change counter (`FileLock`)
///     keychain.generation   the generation this device last wrote (``KeychainGenerationRecord``)
///
/// Before format version 2 the keychain was `Device/Keychains/<app-id>.keychain` (with
/// `.keychain.lock`); ``KeychainStore`` moves such a file here on first use.
struct KeychainLocation: Sendable {
    let directory: ContainerPath
    let file: ContainerPath
    let lock: ContainerPath
    let generation: ContainerPath
    let legacyFile: ContainerPath
    let legacyLock: ContainerPath

    static let legacyDirectory = ContainerPath(constant: "Device/Keychains")
    static let fileName = "keychain.plist"

    init(owner: KeychainOwner) throws(SandboxError) {
        let directory: ContainerPath
        switch owner {
        case .app(let app): directory = SandboxHome.deviceDataDirectory(for: app)
        case .group(let group): directory = SandboxHome.deviceDataDirectory(for: group)
        }
        func name(_ name: String, in parent: ContainerPath) throws(SandboxError) -> ContainerPath {
            try parent.appending(name)
        }
        self.directory = directory
        file = try name(Self.fileName, in: directory)
        lock = try name("keychain.lock", in: directory)
        generation = try name("keychain.generation", in: directory)
        // A group never had a legacy file: its names there stay unused.
        legacyFile = try name("\(owner.name).keychain", in: Self.legacyDirectory)
        legacyLock = try name("\(owner.name).keychain.lock", in: Self.legacyDirectory)
    }
}

/// Whose keychain a file is: an app's own, or an App Group's (a keychain access group).
enum KeychainOwner: Sendable, Hashable, CustomStringConvertible {
    case app(AppIdentifier)
    case group(AppGroupIdentifier)

    /// What the file records as its owner and the seals cover: the app's identifier (as always),
    /// `group:<group-id>` for a group (no app identifier holds a `:`, so the two never meet).
    var name: String {
        switch self {
        case .app(let app): app.rawValue
        case .group(let group): "group:\(group.rawValue)"
        }
    }

    /// The HKDF `info` of the owner's key: `app:<app-id>`, or `group:<group-id>`.
    var keyInfo: String {
        switch self {
        case .app(let app): "app:\(app.rawValue)"
        case .group(let group): "group:\(group.rawValue)"
        }
    }

    var description: String {
        switch self {
        case .app(let app): app.rawValue
        case .group(let group): "App Group '\(group)'"
        }
    }
}
