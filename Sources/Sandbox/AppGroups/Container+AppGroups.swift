import SandboxCore

extension Container {
    /// The App Groups the app belongs to: those its installed bundle's signed manifest lists
    /// (``BundleManifest/appGroups``), read after checking the manifest's signature against the
    /// device's trusted keys. An unsigned placeholder belongs to no group.
    ///
    /// Membership is in the signed manifest itself, so the check does not hash the bundle's files:
    /// changing them cannot change the groups, and makes the app refuse to open anyway
    /// (``verifyBundle(trustedKeys:)``).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid`` and
    ///   ``SandboxCore/SandboxError/Code/untrustedKey`` when the signature does not hold;
    ///   ``SandboxCore/SandboxError/Code/identifierMismatch`` for a bundle signed for another app;
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a malformed manifest; file-system errors.
    public func appGroups() throws(SandboxError) -> [AppGroupIdentifier] {
        let bundle = ContainerPath.root.appendingName(bundleName)
        guard
            let (_, manifest) = try BundleVerifier.signature(
                of: bundle, in: bundleRoot, trustedKeys: try home.trustedKeys(), label: "the bundle of '\(identifier)'")
        else { return [] }
        guard manifest.identity.identifier == identifier else {
            throw SandboxError(
                .identifierMismatch,
                "The bundle of '\(identifier)' is signed for '\(manifest.identity.identifier)': its App Groups are not this app's. Reinstall the app from a bundle signed for it.",
                path: bundleName)
        }
        return manifest.appGroups
    }

    /// The container of `group`, for this app: the role of iOS's
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`. Made on first use, with
    /// `Library/Preferences` and `Library/Caches`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/notAGroupMember`` when the app's signed bundle
    ///   does not list `group` (iOS returns `nil`); the errors of ``appGroups()``;
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` when something else than a directory is
    ///   where the group container goes; file-system errors.
    public func groupContainer(_ group: AppGroupIdentifier) throws(SandboxError) -> AppGroupContainer {
        let groups = try appGroups()
        guard groups.contains(group) else {
            let listed =
                groups.isEmpty ? "lists no App Group" : "lists only \(groups.map(\.rawValue).joined(separator: ", "))"
            throw SandboxError(
                .notAGroupMember,
                "'\(identifier)' is not a member of App Group '\(group)': its signed bundle \(listed). Add the group to the bundle's entitlements (com.apple.security.application-groups), sign it again and update the app.",
                path: group.rawValue)
        }
        guard let root = try home.openGroupRoot(group, creating: true) else {
            throw SandboxError(
                .notFound, "The container of App Group '\(group)' could not be made.", path: group.rawValue)
        }
        return AppGroupContainer(group: group, app: identifier, root: root)
    }
}
