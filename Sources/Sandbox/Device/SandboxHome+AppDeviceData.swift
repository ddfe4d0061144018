import SandboxCore

extension SandboxHome {
    /// `Device/Apps`: the folders of ``deviceDataDirectory(for:)``, one per app.
    public static let appDeviceDataRoot = ContainerPath(constant: "Device/Apps")

    /// `Device/Apps/<app-id>`, relative to the home: what the device keeps for one app outside its
    /// containers, where the app cannot reach it (its keychain, kept by SandboxStore). This module
    /// does not know what is inside; it keeps the folder across updates and removes it, whole,
    /// when the app is uninstalled.
    public static func deviceDataDirectory(for app: AppIdentifier) -> ContainerPath {
        appDeviceDataRoot.appendingName(app.rawValue)
    }
}
