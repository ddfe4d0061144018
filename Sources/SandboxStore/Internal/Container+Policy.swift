import Sandbox

extension Container {
    /// Refuses a write by a general-purpose API (property lists, archives) where the container's
    /// policy names another writer: `Library/Preferences` belongs to the preferences API and
    /// `Documents/Inbox` is read-and-delete.
    ///
    /// The check is lexical (`..` is folded first), so it stops mistakes, not an app that plants
    /// symlinks; the write itself is still confined to the container by the kernel.
    func requireGeneralWrite(to path: ContainerPath) throws(SandboxError) {
        var components: [String] = []
        for component in path.components {
            if component == ".." { _ = components.popLast() } else { components.append(component) }
        }
        // The most specific directory of the layout that holds the path decides.
        let holder = ContainerDirectory.allCases
            .compactMap { directory in directory.path.map { (directory, $0.components) } }
            .filter { components.starts(with: $0.1) }
            .max { $0.1.count < $1.1.count }
        guard let (directory, _) = holder else { return }
        switch directory.policy.appAccess {
        case .readWrite:
            return
        case .preferencesAPI:
            throw SandboxError(
                .readOnly,
                "'\(path)' is in Library/Preferences, which apps write only through the preferences API: use `container.preferences()`.",
                path: path.description)
        case .readAndDelete:
            throw SandboxError(
                .readOnly,
                "'\(path)' is in Documents/Inbox, where other apps deliver documents; the app may only read and delete there. Move the document out of the Inbox first.",
                path: path.description)
        case .readOnly:
            throw SandboxError(
                .readOnly, "'\(path)' is in the app's signed bundle, which is read-only.", path: path.description)
        @unknown default:
            throw SandboxError(
                .readOnly, "'\(path)' is in \(directory.rawValue), which this API may not write.",
                path: path.description)
        }
    }
}
