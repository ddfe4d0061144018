import SandboxCore

extension SandboxHome {
    /// Copies the bundle directory at `hostPath` to `staged` (beneath the home, not yet in place),
    /// then makes the copy read-only.
    ///
    /// Nothing is copied or changed until the host directory has passed every check: a trusted
    /// signature, every file as signed (a symbolic link, FIFO, socket or device is refused, never
    /// followed), and `requirements` (the app, version and signer). Then the copy itself is checked
    /// the same way, beneath its own directory, so what is installed is exactly what was signed
    /// even if the host directory changed meanwhile. Only then is the copy sealed, within the
    /// bundle and without following any link (``/SandboxCore/ConfinedRoot/setPermissions(_:at:)``).
    /// An empty unsigned directory is accepted as a placeholder bundle unless `requirements` say
    /// otherwise.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid``,
    ///   ``SandboxCore/SandboxError/Code/untrustedKey``,
    ///   ``SandboxCore/SandboxError/Code/bundleModified`` naming the first item that differs from
    ///   the signed manifest, ``SandboxCore/SandboxError/Code/identifierMismatch``,
    ///   ``SandboxCore/SandboxError/Code/downgrade``, ``/SandboxCore/SandboxError/Code/notFound``
    ///   for a missing directory, file-system errors. The caller removes `staged` on error.
    @discardableResult
    func stageBundle(
        fromHost hostPath: String, at staged: ContainerPath, requirements: BundleRequirements
    ) throws(SandboxError) -> BundleVerification {
        let keys = try trustedKeys()
        let label = "the bundle '\(hostPath)'"
        let source = try ConfinedRoot(openingDirectoryAt: hostPath, resolution: root.resolution)
        let original = try BundleVerifier.check(
            .root, in: source, trustedKeys: keys, label: label, comparingPermissions: false)
        try Self.refuseChanges(original.changes, of: hostPath, named: staged.lastComponent)
        try requirements.enforce(on: original, bundle: hostPath)

        try root.importItem(fromHost: hostPath, to: staged)
        let bundle = try root.openSubroot(at: staged)
        let copy = try BundleVerifier.check(
            .root, in: bundle, trustedKeys: keys, label: label, comparingPermissions: false)
        try Self.refuseChanges(copy.changes, of: hostPath, named: staged.lastComponent)
        try requirements.enforce(on: copy, bundle: hostPath)
        if let manifest = copy.manifest { try BundleSeal.seal(in: bundle, manifest: manifest) }
        return copy.report
    }

    /// Refuses a bundle to install that does not match its signed manifest.
    private static func refuseChanges(
        _ changes: [BundleChange], of hostPath: String, named name: String?
    ) throws(SandboxError) {
        guard !changes.isEmpty else { return }
        throw SandboxError(
            .bundleModified,
            "The bundle '\(hostPath)' does not match its signed manifest: \(BundleChange.summary(of: changes, inBundleNamed: name ?? hostPath)). Sign it again, then install.",
            path: changes.map(\.path).min())
    }
}
