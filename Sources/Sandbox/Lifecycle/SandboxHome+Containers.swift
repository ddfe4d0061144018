import SandboxCore
import SystemPackage

extension SandboxHome {
    /// Creates the containers of a new app: a data container with the iOS layout and a bundle
    /// container holding `<Name>.app`.
    ///
    /// Both are built under hidden staging names and renamed into place, so a crash leaves no
    /// half-made container behind.
    ///
    /// - Parameters:
    ///   - app: the app to create the containers for.
    ///   - bundleDirectory: a host directory to install as the bundle; its name is kept if it ends
    ///     in `.app`. It must be signed (`sandbox sign`) by a key the device trusts
    ///     (``trust(_:)``), for `app` (its signed manifest names the app). The directory is checked
    ///     completely before anything is copied, and the copy again before it is made read-only:
    ///     a symbolic link, FIFO, socket or device in it is refused, never followed.
    ///     Without it the bundle is an unsigned `<last part>.app` placeholder: empty, or with
    ///     `fileSharing` an `Info.plist` that declares `UIFileSharingEnabled`
    ///     (``BundleInfoFile/fileSharingPlaceholder``) and nothing else.
    ///   - fileSharing: whether the placeholder declares file sharing (iOS's default is not to:
    ///     the share refuses an app that does not declare it). Only without `bundleDirectory`: a
    ///     signed bundle declares it in its own `Info.plist`.
    /// - Throws: ``/SandboxCore/SandboxError/Code/alreadyExists`` when the app has containers;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for `fileSharing` with a bundle directory;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` for a missing bundle directory;
    ///   ``SandboxCore/SandboxError/Code/signatureInvalid``,
    ///   ``SandboxCore/SandboxError/Code/untrustedKey``,
    ///   ``SandboxCore/SandboxError/Code/identifierMismatch`` (signed for another app) and
    ///   ``SandboxCore/SandboxError/Code/bundleModified`` for a bundle that fails its checks
    ///   (nothing is installed, nothing outside the staged copy is changed); file-system errors.
    @discardableResult
    public func createContainer(
        for app: AppIdentifier, bundleDirectory: String? = nil, fileSharing: Bool = false
    ) throws(SandboxError) -> Container {
        if fileSharing, let bundleDirectory {
            throw SandboxError(
                .invalidArgument,
                "File sharing is declared by the bundle '\(bundleDirectory)' itself (UIFileSharingEnabled in its "
                    + "Info.plist), not for it: only a placeholder bundle is made to declare it.",
                path: bundleDirectory)
        }
        let data = Self.dataPath(app)
        let bundle = Self.bundlePath(app)
        guard try root.attributes(at: data, followingSymlink: false) == nil,
            try root.attributes(at: bundle, followingSymlink: false) == nil
        else {
            throw SandboxError(
                .alreadyExists, "A container for '\(app)' already exists. Use it, or uninstall it first.",
                path: app.rawValue)
        }
        let bundleName = Self.bundleName(for: app, from: bundleDirectory)
        let dataStage = try stage(in: Self.dataContainers, for: app)
        let bundleStage = try stage(in: Self.bundleContainers, for: app)
        var bundleInstalled = false
        do throws(SandboxError) {
            for directory in ContainerDirectory.layout {
                guard let path = directory.path else { continue }
                try root.createDirectory(at: dataStage.appendingComponents(of: path))
            }
            if let bundleDirectory {
                let requirements = BundleRequirements(
                    app: app, requiresSignature: false, signer: nil, minimumVersion: nil)
                try stageBundle(
                    fromHost: bundleDirectory, at: bundleStage.appendingName(bundleName), requirements: requirements)
            } else {
                try createPlaceholder(at: bundleStage.appendingName(bundleName), fileSharing: fileSharing)
            }
            try root.moveItem(from: bundleStage, to: bundle)
            bundleInstalled = true
            try root.moveItem(from: dataStage, to: data)
        } catch {
            // Roll back what this call made; the original error is what the caller needs.
            for leftover in bundleInstalled ? [dataStage, bundle] : [dataStage, bundleStage] {
                _ = try? root.removeItem(at: leftover, recursively: true)  // cleanup only: `error` propagates
            }
            throw error
        }
        return try container(for: app)
    }

    /// Opens an installed app's containers.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed (the
    ///   message says how to create it).
    public func container(for app: AppIdentifier) throws(SandboxError) -> Container {
        let dataRoot: ConfinedRoot
        let bundleRoot: ConfinedRoot
        do throws(SandboxError) {
            dataRoot = try root.openSubroot(at: Self.dataPath(app), stagingWritesIn: ContainerDirectory.tmp.path)
            bundleRoot = try root.openSubroot(at: Self.bundlePath(app))
        } catch  where error.code == .notFound {
            throw SandboxError(
                .notFound, "No container for '\(app)'. Create or install the app first.", path: app.rawValue)
        }
        let names = try bundleRoot.contentsOfDirectory(at: .root).filter {
            $0.type == .directory && $0.name.hasSuffix(".app")
        }
        guard let bundleName = names.first?.name else {
            throw SandboxError(
                .corrupt,
                "The bundle container of '\(app)' holds no '.app' directory. Uninstall and create the app again.",
                path: bundleRoot.hostPath)
        }
        return Container(identifier: app, root: dataRoot, bundleRoot: bundleRoot, bundleName: bundleName, home: self)
    }

    /// The installed apps, sorted.
    public func installedApps() throws(SandboxError) -> [AppIdentifier] {
        try root.contentsOfDirectory(at: Self.dataContainers)
            .filter { $0.type == .directory && !$0.name.hasPrefix(".") }
            .compactMap { entry -> AppIdentifier? in
                do {
                    return try AppIdentifier(entry.name)
                } catch {
                    return nil  // a directory whose name is no identifier is not an app's container
                }
            }
            .sorted()
    }

    /// Every installed app's container.
    ///
    /// - Throws: the first error opening a container. Device-wide operations use
    ///   ``openContainers()``, which skips (and names) the apps whose containers cannot be opened.
    public func containers() throws(SandboxError) -> [Container] {
        var result: [Container] = []
        for app in try installedApps() { result.append(try container(for: app)) }
        return result
    }

    /// Removes an app: its data container, its bundle container and what the device keeps for it
    /// (``deviceDataDirectory(for:)-(AppIdentifier)``: its keychain items); and the container of each App Group it
    /// was the last member of (``members(of:)``).
    ///
    /// Each container is first renamed to a hidden name, so the app disappears at once and a crash
    /// midway leaves only debris that the next uninstall of any app sweeps.
    ///
    /// The app's live users are told first (``coordinating(_:of:timeout:_:)``): a share, the
    /// daemon and apps let go (a share stops, the daemon cancels the app's tasks), watchers are
    /// told, and a program under `sandbox run` makes the uninstall refuse.
    ///
    /// - Returns: how many items were removed.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed;
    ///   ``SandboxCore/SandboxError/Code/containerInUse`` when a live user refused or did not let
    ///   go in time (nothing is removed).
    @discardableResult
    public func uninstall(_ app: AppIdentifier) throws(SandboxError) -> Int {
        let containers = [
            (Self.dataContainers, Self.dataPath(app)), (Self.bundleContainers, Self.bundlePath(app)),
        ]
        var installed: [(parent: ContainerPath, path: ContainerPath)] = []
        for (parent, path) in containers where try root.attributes(at: path, followingSymlink: false) != nil {
            installed.append((parent, path))
        }
        guard !installed.isEmpty else {
            throw SandboxError(
                .notFound,
                "No container for '\(app)': nothing to uninstall; check the identifier against the installed apps.",
                path: app.rawValue)
        }
        return try coordinating(.uninstall, of: app) { () throws(SandboxError) -> Int in
            let groups = try groupsToSweep(after: app)
            var removed = 0
            let deviceData = Self.deviceDataDirectory(for: app)
            if try root.attributes(at: deviceData, followingSymlink: false) != nil {
                removed += try root.removeItem(at: deviceData, recursively: true)
            }
            for (parent, path) in installed where try root.attributes(at: path, followingSymlink: false) != nil {
                let trash = try stage(in: parent, for: app, prefix: ".removing-", create: false)
                try root.moveItem(from: path, to: trash)
                removed += try root.removeItem(at: trash, recursively: true)
            }
            for group in groups { removed += try removeGroupContainerIfUnused(group, leaving: app) }
            return removed
        }
    }

    /// The unsigned placeholder bundle `createContainer` makes without a bundle directory.
    private func createPlaceholder(at bundle: ContainerPath, fileSharing: Bool) throws(SandboxError) {
        try root.createDirectory(at: bundle)
        guard fileSharing else { return }
        let info = bundle.appendingComponents(of: BundleInfoFile.path)
        try root.writeContents(
            BundleInfoFile.fileSharingPlaceholder, to: info, options: [.atomic, .withoutOverwriting])
        try root.setPermissions(FilePermissions(rawValue: 0o444), at: info)
    }

    private func stage(
        in parent: ContainerPath, for app: AppIdentifier, prefix: String = ".creating-", create: Bool = true
    ) throws(SandboxError) -> ContainerPath {
        let path = parent.appendingName(
            "\(prefix)\(app.rawValue)-\(RandomToken.make())")
        if create { try root.createDirectory(at: path) }
        return path
    }

    static func bundleName(for app: AppIdentifier, from directory: String?) -> String {
        if let last = directory?.split(separator: "/").last, last.hasSuffix(".app"), last.count > 4 {
            return String(last)
        }
        return app.lastPart + ".app"
    }
}

extension ContainerPath {
    func appendingComponents(of other: ContainerPath) -> ContainerPath {
        other.names.reduce(self) { $0.appending($1) }
    }
}
