import SandboxCore

extension DirectoryPolicy {
    /// What a file operation does to an item, as the policy sees it.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Reading contents, listing, describing.
        case read
        /// Making a new item: a file written, copied or moved in, a directory created.
        case create
        /// Changing an existing item: its contents or attributes (such as "excluded from backup").
        case modify
        /// Removing an item, or moving it away.
        case delete
    }

    /// Whether the app may do `action` there: everything where it may read and write; read and
    /// delete in the Inbox; only read where the preferences API or the bundle's signature decides.
    public func allows(_ action: Action) -> Bool {
        switch appAccess {
        case .readWrite: true
        case .readAndDelete: action == .read || action == .delete
        case .preferencesAPI, .readOnly: action == .read
        }
    }
}

extension ContainerDirectory {
    /// The directory of the data container's layout that holds `path` (the deepest one, the path
    /// itself included), judged by its names: `.home` when no other holds it. `..` is not
    /// resolved here: see ``Container/checkPolicy(allowing:at:)``.
    public static func holding(_ path: ContainerPath) -> ContainerDirectory {
        var best: (directory: ContainerDirectory, depth: Int) = (.home, 0)
        for (directory, location) in locations {
            guard location.names.count > best.depth, path.isDescendant(of: location) else { continue }
            best = (directory, location.names.count)
        }
        return best.directory
    }

    /// Each directory with a path in the data container, and that path, parsed once: the share
    /// asks ``holding(_:)`` on every request, and parsing the eight paths each time was ~3 % of a
    /// small GET's CPU.
    private static let locations: [(ContainerDirectory, ContainerPath)] = allCases.compactMap { directory in
        directory.path.map { (directory, $0) }
    }
}
