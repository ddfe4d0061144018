import Foundation
import SandboxCore

/// An app whose bundle was checked on opening: what a launcher (`sandbox run`) starts from.
public struct OpenedApp: Sendable {
    /// The app's containers.
    public let container: Container
    /// The verified bundle, with the app's preferred languages for look-ups.
    public let bundle: AppBundle
    /// What the check found.
    public let verification: BundleVerification
}

extension Container {
    /// The bundle, read-only, for resource look-ups. Does not check the signature: open the app
    /// with ``SandboxHome/openApp(_:preferredLanguages:environment:)`` for that.
    ///
    /// - Parameter preferredLanguages: the languages look-ups prefer; `nil` takes the
    ///   environment's (``PreferredLanguages/fromEnvironment(_:)``). The app's own `AppleLanguages`
    ///   preference is read by SandboxStore (`localizedBundle(environment:)`), which owns the
    ///   preferences file.
    /// - Parameter environment: the variables ``PreferredLanguages/fromEnvironment(_:)`` reads
    ///   when `preferredLanguages` is `nil`; the process's own by default.
    /// - Throws: file-system errors.
    public func bundle(
        preferredLanguages: [String]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> AppBundle {
        let languages = preferredLanguages ?? PreferredLanguages.fromEnvironment(environment)
        let root = try bundleRoot.openSubroot(at: ContainerPath.root.appendingName(bundleName))
        return AppBundle(name: bundleName, root: root, preferredLanguages: languages)
    }

    /// Checks the installed bundle against its signature and manifest: the signer must be in
    /// `trustedKeys`, and every file must have its signed contents (SHA-256, streamed), size, type
    /// and read-only permissions, with nothing added or removed. An empty unsigned placeholder
    /// (an app created without a bundle) passes as unsigned.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/bundleModified`` naming the first changed, added
    ///   or removed file (and how many more); ``SandboxCore/SandboxError/Code/signatureInvalid``
    ///   and ``SandboxCore/SandboxError/Code/untrustedKey``; file-system errors.
    @discardableResult
    public func verifyBundle(trustedKeys: Set<SigningPublicKey>) throws(SandboxError) -> BundleVerification {
        let bundle = ContainerPath.root.appendingName(bundleName)
        let label = "the bundle of '\(identifier)'"
        let check = try BundleVerifier.check(bundle, in: bundleRoot, trustedKeys: trustedKeys, label: label)
        let changes = check.changes
        guard changes.isEmpty else {
            throw SandboxError(
                .bundleModified,
                "The bundle of '\(identifier)' was changed after it was installed: \(BundleChange.summary(of: changes, inBundleNamed: bundleName)). The app will not be opened; reinstall it from its signed bundle.",
                path: changes.map(\.path).min().map { bundleName + "/" + $0 }
            )
        }
        return check.report
    }
}

extension SandboxHome {
    /// Opens an installed app: checks its bundle against the device's trusted keys and its signed
    /// manifest (``Container/verifyBundle(trustedKeys:)``), then returns it with its bundle ready
    /// for look-ups in `preferredLanguages` (`nil`: the environment's; SandboxStore's
    /// `openAppInPreferredLanguages` passes the app's own). Every launch goes through here.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed;
    ///   ``SandboxCore/SandboxError/Code/bundleModified`` naming the changed file;
    ///   ``SandboxCore/SandboxError/Code/signatureInvalid``;
    ///   ``SandboxCore/SandboxError/Code/untrustedKey`` when the signer is no longer trusted.
    public func openApp(
        _ app: AppIdentifier,
        preferredLanguages: [String]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SandboxError) -> OpenedApp {
        let container = try container(for: app)
        let verification = try container.verifyBundle(trustedKeys: try trustedKeys())
        return OpenedApp(
            container: container,
            bundle: try container.bundle(preferredLanguages: preferredLanguages, environment: environment),
            verification: verification)
    }
}
