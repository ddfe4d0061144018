import SandboxCore

extension SandboxHome {
    /// `Containers/Shared/AppGroup`: one folder per App Group that a member has used.
    package static let groupContainers = ContainerPath(constant: "Containers/Shared/AppGroup")

    static func groupPath(_ group: AppGroupIdentifier) -> ContainerPath {
        groupContainers.appendingName(group.rawValue)
    }

    /// The groups that have a container on this device, sorted: the folders of
    /// `Containers/Shared/AppGroup` whose names are valid group identifiers (hidden staging
    /// folders and anything else are passed over).
    ///
    /// - Throws: file-system errors listing the folder; none when it does not exist.
    public func groupContainerIdentifiers() throws(SandboxError) -> [AppGroupIdentifier] {
        guard try root.attributes(at: Self.groupContainers, followingSymlink: false)?.type == .directory else {
            return []
        }
        return try root.contentsOfDirectory(at: Self.groupContainers)
            .filter { $0.type == .directory && !$0.name.hasPrefix(".") }
            .compactMap { entry -> AppGroupIdentifier? in
                do {
                    return try AppGroupIdentifier(entry.name)
                } catch {
                    return nil  // a folder whose name is no group identifier is not a group's container
                }
            }
            .sorted()
    }

    /// Opens the container of `group`, creating it with its layout (``AppGroupContainer/layout``)
    /// when it is missing; does not check membership (``Container/groupContainer(_:)`` does).
    ///
    /// A new container is built under a hidden staging name and renamed into place, so a crash
    /// leaves no half-made one, and two members creating it at once both get the one that won.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notADirectory`` when something else than a
    ///   directory (a symbolic link included) is at the group's path; file-system errors.
    func openGroupRoot(_ group: AppGroupIdentifier, creating: Bool) throws(SandboxError) -> ConfinedRoot? {
        let path = Self.groupPath(group)
        switch try root.attributes(at: path, followingSymlink: false)?.type {
        case .directory?:
            break
        case nil:
            guard creating else { return nil }
            try createGroupContainer(at: path, for: group)
        case let other?:
            throw SandboxError(
                .notADirectory,
                "The container of App Group '\(group)' is a \(other), not a directory; it is not followed. Remove '\(root.displayPath(of: path))' so that it is made again.",
                path: path.description)
        }
        let groupRoot = try root.openSubroot(at: path)
        if creating {
            // Repairs a layout a member changed: made beneath the group root, never through a link out.
            for directory in AppGroupContainer.layout {
                try groupRoot.createDirectory(at: directory, withIntermediateDirectories: true)
            }
        }
        return groupRoot
    }

    private func createGroupContainer(at path: ContainerPath, for group: AppGroupIdentifier) throws(SandboxError) {
        try root.createDirectory(at: Self.groupContainers, withIntermediateDirectories: true)
        let stage = Self.groupContainers.appendingName(".creating-\(group.rawValue)-\(RandomToken.make())")
        try root.createDirectory(at: stage)
        do throws(SandboxError) {
            for directory in AppGroupContainer.layout {
                try root.createDirectory(at: stage.appendingComponents(of: directory))
            }
            try root.moveItem(from: stage, to: path)
        } catch {
            _ = try? root.removeItem(at: stage, recursively: true)  // cleanup only: the outcome is decided below
            // Another member made it first: theirs is the container.
            guard error.code == .alreadyExists else { throw error }
        }
    }

    /// The installed apps whose signed bundles list `group`, sorted. An app whose membership
    /// cannot be read (its signer no longer trusted, its manifest damaged) counts as a member:
    /// the group's data is kept for it.
    ///
    /// - Throws: file-system errors listing the installed apps.
    public func members(of group: AppGroupIdentifier) throws(SandboxError) -> [AppIdentifier] {
        var members: [AppIdentifier] = []
        for app in try installedApps() {
            do throws(SandboxError) {
                if try container(for: app).appGroups().contains(group) { members.append(app) }
            } catch {
                members.append(app)
            }
        }
        return members
    }

    /// Removes the container of `group`, and what the device keeps for it
    /// (``deviceDataDirectory(for:)-(AppGroupIdentifier)``: its keychain items), when no installed
    /// app but `leaving` is a member. The container is renamed to a hidden name first, so the group
    /// disappears at once and a crash leaves only debris.
    ///
    /// - Returns: how many items were removed.
    func removeGroupContainerIfUnused(_ group: AppGroupIdentifier, leaving: AppIdentifier) throws(SandboxError) -> Int {
        let path = Self.groupPath(group)
        let deviceData = Self.deviceDataDirectory(for: group)
        var present: [ContainerPath] = []
        for item in [path, deviceData] where try root.attributes(at: item, followingSymlink: false) != nil {
            present.append(item)
        }
        guard !present.isEmpty, try members(of: group).allSatisfy({ $0 == leaving }) else { return 0 }
        var removed = 0
        if present.contains(deviceData) { removed += try root.removeItem(at: deviceData, recursively: true) }
        if present.contains(path) {
            let trash = Self.groupContainers.appendingName(".removing-\(group.rawValue)-\(RandomToken.make())")
            try root.moveItem(from: path, to: trash)
            removed += try root.removeItem(at: trash, recursively: true)
        }
        return removed
    }
}

extension SandboxHome {
    /// The groups whose containers may have lost their last member when `app` goes: the groups
    /// its bundle lists, or every group container when its membership cannot be read (each is
    /// then kept while any remaining member, readable or not, may use it).
    func groupsToSweep(after app: AppIdentifier) throws(SandboxError) -> [AppGroupIdentifier] {
        do throws(SandboxError) {
            return try container(for: app).appGroups()
        } catch {
            return try groupContainerIdentifiers()
        }
    }
}
