import SandboxCore

extension SandboxHome {
    /// Copies the bundle directory at `hostPath` to `staged` (beneath the home, not yet in place),
    /// then makes the copy read-only and checks it completely.
    ///
    /// The signature is checked on the host directory first, so an untrusted or badly signed
    /// bundle is refused before anything is copied; then the copy itself is checked, so what is
    /// installed is exactly what was signed even if the host directory changes meanwhile. An empty
    /// unsigned directory is accepted as a placeholder bundle.
    ///
    /// - Throws: ``SandboxError/Code/signatureInvalid``, ``SandboxError/Code/untrustedKey``,
    ///   ``SandboxError/Code/bundleModified`` naming the first file that differs from the signed
    ///   manifest, ``SandboxError/Code/notFound`` for a missing directory, file-system errors.
    ///   The caller removes `staged` on error.
    @discardableResult
    func stageBundle(fromHost hostPath: String, at staged: ContainerPath) throws(SandboxError) -> BundleVerification {
        let keys = try trustedKeys()
        let label = "the bundle '\(hostPath)'"
        let source = try ConfinedRoot(openingDirectoryAt: hostPath, resolution: root.resolution)
        _ = try BundleVerifier.signature(of: .root, in: source, trustedKeys: keys, label: label)
        try root.importItem(fromHost: hostPath, to: staged)
        guard let (_, manifest) = try BundleVerifier.signature(of: staged, in: root, trustedKeys: keys, label: label) else {
            return BundleVerification(isSigned: false, keyID: nil, files: 0, directories: 0, bytes: 0)
        }
        try BundleSeal.seal(staged, in: root, manifest: manifest)
        let (report, changes) = try BundleVerifier.check(staged, in: root, trustedKeys: keys, label: label)
        guard changes.isEmpty else {
            let name = staged.lastComponent ?? hostPath
            throw SandboxError(.bundleModified, "The bundle '\(hostPath)' does not match its signed manifest: \(BundleChange.summary(of: changes, inBundleNamed: name)). Sign it again with `sandbox sign`, then install.", path: changes.map(\.path).min())
        }
        return report
    }
}
