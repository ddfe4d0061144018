import SandboxCore

extension Container {
    /// Refuses `action` on the item at `path` where the container's policy forbids it
    /// (``ContainerPolicy/app``, which this asks): nothing may be created or changed in `Documents/Inbox`,
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
        for location in try locations(of: path, followingFinalLink: action == .read || action == .modify) {
            try ContainerPolicy.app.check(action, at: location, requested: path)
        }
    }

    /// Refuses moving or renaming the item at `source` to `destination` where the policy forbids
    /// it: a move removes the item from where it was and creates it where it goes, so both are
    /// judged (``ContainerPolicy/checkMove(from:to:requested:)``), each where its names put it and
    /// where it really is, as ``checkPolicy(allowing:at:)`` judges a path.
    ///
    /// - Throws: what ``checkPolicy(allowing:at:)`` throws, for either path.
    public func checkPolicy(movingFrom source: ContainerPath, to destination: ContainerPath) throws(SandboxError) {
        let sources = try locations(of: source, followingFinalLink: false)
        let destinations = try locations(of: destination, followingFinalLink: false)
        for (from, to) in zip(sources, destinations) {
            try ContainerPolicy.app.checkMove(from: from, to: to, requested: (source, destination))
        }
    }

    /// Where `path` is by its names alone (``folded(_:)``) and where it really leads, resolved
    /// beneath the container.
    private func locations(of path: ContainerPath, followingFinalLink: Bool) throws(SandboxError) -> [ContainerPath] {
        [Self.folded(path), try root.location(of: path, followingFinalLink: followingFinalLink)]
    }

    /// `path` with each `..` taking away the name before it, by the names alone.
    package static func folded(_ path: ContainerPath) -> ContainerPath {
        var names: [FileName] = []
        for name in path.names {
            if name.isParentReference { _ = names.popLast() } else { names.append(name) }
        }
        return names.reduce(ContainerPath.root) { $0.appending($1) }
    }
}
