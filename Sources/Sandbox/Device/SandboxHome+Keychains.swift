import SandboxCore

extension SandboxHome {
    /// `Device/Keychains`: each app's keychain, outside its containers, so that it survives
    /// updates and is never part of what the app can reach.
    public static let keychainsDirectory = ContainerPath(constant: "Device/Keychains")

    /// `Device/device.key`: the random per-device key the keychains are encrypted under. It never
    /// leaves the device: not in a container, not in a backup.
    public static let deviceKeyPath = ContainerPath(constant: "Device/device.key")

    /// The files of an app's keychain, relative to the home: `<app-id>.keychain` and its lock file
    /// `<app-id>.keychain.lock`. Uninstall removes them.
    public static func keychainFiles(for app: AppIdentifier) -> [ContainerPath] {
        ["\(app.rawValue).keychain", "\(app.rawValue).keychain.lock"].map { keychainsDirectory.appendingName($0) }
    }
}
