import SandboxCore

extension SandboxHome {
    /// `Device/Apps`: the folders of ``deviceDataDirectory(for:)-(AppIdentifier)``, one per app.
    public static let appDeviceDataRoot = ContainerPath(constant: "Device/Apps")

    /// `Device/Apps/<app-id>`, relative to the home: what the device keeps for one app outside its
    /// containers, where the app cannot reach it (its keychain, kept by SandboxStore). This module
    /// does not know what is inside; it keeps the folder across updates and removes it, whole,
    /// when the app is uninstalled.
    public static func deviceDataDirectory(for app: AppIdentifier) -> ContainerPath {
        appDeviceDataRoot.appendingName(app.rawValue)
    }

    /// `Device/AppGroups`: the folders of ``deviceDataDirectory(for:)-(AppGroupIdentifier)``, one
    /// per App Group.
    public static let groupDeviceDataRoot = ContainerPath(constant: "Device/AppGroups")

    /// `Device/AppGroups/<group-id>`, relative to the home: what the device keeps for an App
    /// Group outside every container (its keychain access group, kept by SandboxStore); removed,
    /// whole, with the group's last member.
    public static func deviceDataDirectory(for group: AppGroupIdentifier) -> ContainerPath {
        groupDeviceDataRoot.appendingName(group.rawValue)
    }
}
