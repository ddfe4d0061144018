import SandboxCore

extension Container {
    /// Refuses `action` on the item at `path` where the container's policy forbids it (see
    /// ``DirectoryPolicy/allows(_:)``): nothing may be created or changed in `Documents/Inbox`,
    /// whose documents the app may only read and delete; nothing in `Library/Preferences` but
    /// through the preferences API. Removing (or moving away) a directory that holds one of those
    /// is refused as removing it would be.
    ///
    /// The rule is found where the item really is: `..` folded and the links on the way resolved
    /// beneath the container by the confined root's own rules
    /// (`ConfinedRoot.location(of:followingFinalLink:)`; the last link too when
    /// `action` reads or modifies, which follow it),
    /// and, as well, where its names alone put it. Both must allow the action, so neither
    /// `Documents/x/../Inbox/f` nor `Documents/link/f` (with `link` pointing into the Inbox) gets
    /// round the rule. The check sees the container as it is at the call: an app that swaps links
    /// meanwhile can still redirect the operation within its own container, never out of it.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly`` naming the rule; resolution errors
    ///   such as ``/SandboxCore/SandboxError/Code/escapesContainer`` and
    ///   ``/SandboxCore/SandboxError/Code/symlinkLoop``.
    public func checkPolicy(allowing action: DirectoryPolicy.Action, at path: ContainerPath) throws(SandboxError) {
        let resolved = try root.location(of: path, followingFinalLink: action == .read || action == .modify)
        for location in [Self.folded(path), resolved] {
            let directory = ContainerDirectory.holding(location)
            if !directory.policy.allows(action) {
                let place = location == path ? "'\(path)'" : "'\(path)' (which leads to '\(location)')"
                throw Self.refusal(action, at: path, described: place, by: directory)
            }
            guard action == .delete else { continue }
            for inner in ContainerDirectory.allCases where !inner.policy.allows(.delete) {
                guard let innerPath = inner.path, innerPath.isDescendant(of: location), innerPath != location else {
                    continue
                }
                throw Self.refusal(action, at: path, described: "'\(path)', which holds '\(innerPath)'", by: inner)
            }
        }
    }

    /// Refuses moving or renaming the item at `source` to `destination` where the policy forbids
    /// it: a move removes the item from where it was and creates it where it goes, so both are
    /// judged (``checkPolicy(allowing:at:)`` with `.delete` at `source`, `.create` at
    /// `destination`).
    ///
    /// - Throws: what ``checkPolicy(allowing:at:)`` throws, for either path.
    public func checkPolicy(movingFrom source: ContainerPath, to destination: ContainerPath) throws(SandboxError) {
        try checkPolicy(allowing: .delete, at: source)
        try checkPolicy(allowing: .create, at: destination)
    }

    private static func refusal(
        _ action: DirectoryPolicy.Action, at path: ContainerPath, described place: String,
        by directory: ContainerDirectory
    ) -> SandboxError {
        let verb = action == .delete ? "removing" : action == .create ? "creating" : "changing"
        let shown = directory.path.map { "'\($0)'" } ?? directory.rawValue
        let rule: String
        switch directory.policy.appAccess {
        case .readAndDelete:
            rule =
                "\(shown) is where other apps deliver documents: the app may only read and delete there. Move the document out of the Inbox to change it"
        case .preferencesAPI:
            rule = "\(shown) is written only through the preferences API"
        case .readOnly, .readWrite:
            rule = "\(shown) is read-only"
        }
        return SandboxError(.readOnly, "Refused \(verb) \(place): \(rule).", path: path.description)
    }

    /// `path` with each `..` taking away the name before it, by the names alone.
    static func folded(_ path: ContainerPath) -> ContainerPath {
        var names: [FileName] = []
        for name in path.names {
            if name.isParentReference { _ = names.popLast() } else { names.append(name) }
        }
        return names.reduce(ContainerPath.root) { $0.appending($1) }
    }
}
