import SandboxCore

/// What an install or an update demands of a bundle beyond a valid signature by a trusted key:
/// the app its signature names, its version, its signer.
struct BundleRequirements {
    /// The app being installed or updated: the signed identifier must be this one.
    var app: AppIdentifier
    /// Whether an empty unsigned placeholder is refused (an update needs a signed bundle).
    var requiresSignature: Bool
    /// The signer the bundle must come from; `nil` accepts any trusted signer.
    var signer: SigningPublicKey?
    /// The installed version, which the bundle may not be lower than; `nil` when there is none
    /// (a new install, or a placeholder bundle). The same version is accepted: re-installing it
    /// repairs a bundle that was modified.
    var minimumVersion: BundleVersion?

    /// Refuses `check` when the bundle at `hostPath` breaks a requirement.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid`` for a placeholder where a
    ///   signature is required; ``SandboxCore/SandboxError/Code/untrustedKey`` for another signer;
    ///   ``SandboxCore/SandboxError/Code/identifierMismatch`` for a bundle signed for another app;
    ///   ``SandboxCore/SandboxError/Code/downgrade`` for a lower version.
    func enforce(on check: BundleCheck, bundle hostPath: String) throws(SandboxError) {
        guard let manifest = check.manifest else {
            guard !requiresSignature else {
                throw SandboxError(
                    .signatureInvalid,
                    "The bundle '\(hostPath)' is empty and unsigned; an update needs a signed bundle. \(BundleVerifier.signRemedy)",
                    path: hostPath)
            }
            return
        }
        if let signer, check.report.keyID != signer.keyID {
            throw SandboxError(
                .untrustedKey,
                "The bundle '\(hostPath)' is signed by key \(check.report.keyID.map { String($0.prefix(16)) } ?? "none"), but '\(app)' was installed from key \(signer): an update must come from the same signer. Pass --allow-new-signer (allowingNewSigner) to accept the new one.",
                path: hostPath)
        }
        let identity = manifest.identity
        guard identity.identifier == app else {
            throw SandboxError(
                .identifierMismatch,
                "The bundle '\(hostPath)' is signed for '\(identity.identifier)', not '\(app)': a bundle installs only as the app its signature names. Install it as '\(identity.identifier)', or sign it with CFBundleIdentifier '\(app)'.",
                path: hostPath)
        }
        if let minimumVersion, identity.version < minimumVersion {
            throw SandboxError(
                .downgrade,
                "The bundle '\(hostPath)' is version \(identity.version) of '\(app)', lower than the installed version \(minimumVersion): an update never goes back to an older version. Sign the bundle with a higher CFBundleVersion, or uninstall the app first (its data goes with it).",
                path: hostPath)
        }
    }
}
