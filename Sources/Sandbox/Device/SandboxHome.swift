import Foundation
import SandboxCore

/// The sandbox home: one simulated device, holding its apps' containers and its own secrets.
///
/// Layout (all beneath the home, which is opened once and held as a confined root):
///
///     Containers/Data/<app-id>/            the data container (Documents, Library, tmp)
///     Containers/Bundle/<app-id>/<Name>.app the bundle container
///     Device/                              the device's own secrets; never in a container or backup
public final class SandboxHome: Sendable {
    /// The home directory, confined.
    public let root: ConfinedRoot

    static let containers = ContainerPath(constant: "Containers")
    static let dataContainers = ContainerPath(constant: "Containers/Data")
    static let bundleContainers = ContainerPath(constant: "Containers/Bundle")
    static let device = ContainerPath(constant: "Device")

    /// Opens the home at `location`, creating it and its layout if needed.
    ///
    /// The home is private to its user, as iOS keeps each container private to its app: what it
    /// creates is `0700` (directories) and `0600` (files) whatever the umask, and a home made
    /// before has its root, `Containers/` and `Device/` tightened to `0700` here (everything else
    /// is beneath them).
    ///
    /// - Parameters:
    ///   - location: a host path; `nil` uses ``defaultLocation(environment:)``.
    ///   - environment: the variables ``defaultLocation(environment:)`` reads when `location` is
    ///     `nil`; the process's own by default.
    ///   - resolution: how paths are resolved beneath the home and its containers.
    /// - Throws: ``/SandboxCore/SandboxError`` when the directory cannot be created or opened, e.g.
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` or
    ///   ``/SandboxCore/SandboxError/Code/notADirectory``;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` also for a home readable by others
    ///   that is not the user's to make private.
    public init(
        location: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        resolution: ConfinedRoot.Resolution = .automatic
    ) throws(SandboxError) {
        let path: String
        if let location {
            path = location
        } else {
            path = try Self.defaultLocation(environment: environment)
        }
        root = try ConfinedRoot.creatingDirectory(atHostPath: path, resolution: resolution)
        for directory in [Self.dataContainers, Self.bundleContainers, Self.device] {
            try root.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        try makePrivate()
    }

    /// The host path of the home.
    public var location: String { root.hostPath }

    /// Where the home lives when none is given: `$SANDBOX_HOME`; else `$XDG_DATA_HOME/sandbox`;
    /// else `~/.local/share/sandbox` (`~/Library/Application Support/Sandbox` on macOS).
    ///
    /// Foundation's `FileManager.urls(for:in:)` is not consulted: on Linux it ignores `$HOME`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when neither the variables nor `$HOME`
    ///   are set.
    public static func defaultLocation(environment: [String: String]) throws(SandboxError) -> String {
        if let explicit = environment["SANDBOX_HOME"], !explicit.isEmpty { return explicit }
        #if os(macOS)
            if let home = environment["HOME"], !home.isEmpty { return home + "/Library/Application Support/Sandbox" }
        #else
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/sandbox" }
            if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/sandbox" }
        #endif
        throw SandboxError(
            .notFound, "No place for the sandbox home: set SANDBOX_HOME (or HOME) to a writable directory.")
    }

    static func dataPath(_ app: AppIdentifier) -> ContainerPath {
        dataContainers.appendingName(app.rawValue)
    }

    static func bundlePath(_ app: AppIdentifier) -> ContainerPath {
        bundleContainers.appendingName(app.rawValue)
    }
}

extension ContainerPath {
    /// Appends a name already known to be valid (an ``AppIdentifier`` is one).
    func appendingName(_ name: String) -> ContainerPath {
        do {
            return try appending(name)
        } catch {
            preconditionFailure("'\(name)' was validated as a name: \(error.message)")
        }
    }
}
