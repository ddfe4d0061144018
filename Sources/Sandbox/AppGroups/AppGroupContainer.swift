import SandboxCore

/// An App Group's container, `Containers/Shared/AppGroup/<group-id>/`, opened for one of its
/// member apps: what `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` gives an
/// iOS app.
///
/// Every file operation goes through ``root``, confined beneath the group container by the
/// kernel: a symbolic link one member plants there never leads another member (or a device-wide
/// operation) out of it, into an app's container or anywhere else. The layout is iOS's:
/// `Library/Preferences` (the group's preference suites) and `Library/Caches`; there is no `tmp`.
public final class AppGroupContainer: Sendable {
    /// The group.
    public let group: AppGroupIdentifier
    /// The member app that opened the container.
    public let app: AppIdentifier
    /// The group container, confined.
    public let root: ConfinedRoot

    /// The directories every group container has, made when it is first used.
    public static let layout = [
        ContainerPath(constant: "Library"), ContainerPath(constant: "Library/Preferences"),
        ContainerPath(constant: "Library/Caches"),
    ]
    /// `Library/Preferences`: the group's preference suites.
    public static let preferences = ContainerPath(constant: "Library/Preferences")
    /// `Library/Caches`: what the device may purge.
    public static let caches = ContainerPath(constant: "Library/Caches")

    init(group: AppGroupIdentifier, app: AppIdentifier, root: ConfinedRoot) {
        self.group = group
        self.app = app
        self.root = root
    }

    /// The host path of the group container, for display and for handing to other programs.
    /// Open files through ``root`` instead: a host path is not confined.
    public var hostPath: String { root.hostPath }
}
