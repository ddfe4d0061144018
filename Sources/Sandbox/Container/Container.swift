import SandboxCore

/// An installed app's containers: the data container (its home) and the bundle container.
///
/// Every file operation goes through ``root``, confined beneath the container by the kernel; paths
/// are ``/SandboxCore/ContainerPath`` values relative to the container's home. The bundle is read
/// through ``bundle(preferredLanguages:environment:)``, which offers no writes: it is read-only and
/// signed.
public final class Container: Sendable {
    /// The app the containers belong to.
    public let identifier: AppIdentifier
    /// The data container: `Documents`, `Library`, `tmp`.
    public let root: ConfinedRoot
    /// The bundle container, which holds ``bundleName``. Not public: the library offers no way to
    /// write to the bundle.
    let bundleRoot: ConfinedRoot
    /// The bundle's directory name, e.g. `notes.app`.
    public let bundleName: String
    /// The device home the containers are in: its Data Protection keys are what the folders'
    /// protection classes are written with.
    public let home: SandboxHome

    init(
        identifier: AppIdentifier, root: ConfinedRoot, bundleRoot: ConfinedRoot, bundleName: String, home: SandboxHome
    ) {
        self.identifier = identifier
        self.home = home
        self.root = root
        self.bundleRoot = bundleRoot
        self.bundleName = bundleName
    }

    /// The host path of a directory, for display and for handing to other programs.
    /// Open files through ``root`` instead: a host path is not confined.
    public func hostPath(for directory: ContainerDirectory) -> String {
        guard let path = directory.path else { return bundleRoot.hostPath + "/" + bundleName }
        return root.displayPath(of: path)
    }

    /// `NSHomeDirectory()`: the data container's root.
    public var homeDirectory: String { root.hostPath }

    /// `NSTemporaryDirectory()`: the container's `tmp/`, with a trailing slash as on iOS.
    public var temporaryDirectory: String { hostPath(for: .tmp) + "/" }
}
