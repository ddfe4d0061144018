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

    init(app: AppIdentifier) throws(SandboxError) {
        let directory = SandboxHome.deviceDataDirectory(for: app)
        func name(_ name: String, in parent: ContainerPath) throws(SandboxError) -> ContainerPath {
            try parent.appending(name)
        }
        self.directory = directory
        file = try name(Self.fileName, in: directory)
        lock = try name("keychain.lock", in: directory)
        generation = try name("keychain.generation", in: directory)
        legacyFile = try name("\(app.rawValue).keychain", in: Self.legacyDirectory)
        legacyLock = try name("\(app.rawValue).keychain.lock", in: Self.legacyDirectory)
    }
}
