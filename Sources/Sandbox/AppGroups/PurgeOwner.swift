import SandboxCore

/// Whose container a purged item was in: an app's, or an App Group's.
public enum PurgeOwner: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// An app's data container (`tmp/`, `Library/Caches/`).
    case app(AppIdentifier)
    /// An App Group's container (its `Library/Caches/`).
    case group(AppGroupIdentifier)

    /// The app, or `group:<group-id>` (as `sandbox path` names a group's container).
    public var description: String {
        switch self {
        case .app(let app): app.rawValue
        case .group(let group): "group:\(group.rawValue)"
        }
    }

    /// Orders by ``description``: apps and groups by name.
    public static func < (lhs: PurgeOwner, rhs: PurgeOwner) -> Bool { lhs.description < rhs.description }
}

extension AppGroupIdentifier {
    /// `path` in this group's container, as a member's presenter declares it held
    /// (``ContainerPresenter/hold(_:)``, beside its own container's paths): `group:<group-id>/<path>`.
    /// Purge never evicts it while the presenter lives.
    public func heldPath(_ path: ContainerPath) -> ContainerPath {
        // A valid group identifier makes a valid file name: letters, digits, '-', '.' and the prefix.
        ContainerPath.root.appending(FileName(uncheckedBytes: "group:\(rawValue)".utf8))
            .appending(contentsOf: path.names)
    }
}

extension SandboxHome {
    /// The paths of `group`'s container that its members' live users declared held
    /// (``AppGroupIdentifier/heldPath(_:)``).
    func heldPaths(inGroup group: AppGroupIdentifier) throws(SandboxError) -> [String] {
        let prefix = "group:\(group.rawValue)/"
        var held: [String] = []
        for member in try members(of: group) {
            held += try heldPaths(of: member).filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        return held
    }

    /// The `Library/Caches` of each group container, with its root: what purging may evict beside
    /// the apps' containers. A group whose container cannot be opened, or whose `Library/Caches`
    /// is not a directory (a link is never followed), is returned with the error.
    func groupCaches() throws(SandboxError) -> [(
        group: AppGroupIdentifier, result: Result<ConfinedRoot?, SandboxError>
    )] {
        try groupContainerIdentifiers().map { group in
            do throws(SandboxError) {
                guard let root = try openGroupRoot(group, creating: false) else { return (group, .success(nil)) }
                switch try root.attributes(at: AppGroupContainer.caches, followingSymlink: false)?.type {
                case nil: return (group, .success(nil))
                case .directory?: return (group, .success(root))
                case let other?:
                    throw SandboxError(
                        .notADirectory,
                        "'\(AppGroupContainer.caches)' in the container of App Group '\(group)' is a \(other), not a directory; it is not followed. Remove it and create the directory again.",
                        path: root.displayPath(of: AppGroupContainer.caches))
                }
            } catch {
                return (group, .failure(error))
            }
        }
    }
}
