import SandboxCore

/// What ``SandboxHome/update(_:bundleDirectory:allowingNewSigner:)`` did.
public struct UpdateReport: Sendable, Hashable, Codable {
    /// The identifier of the app updated.
    public var app: String
    /// The host path of the new bundle.
    public var bundle: String
    /// The signer of the bundle that was replaced, if it was signed.
    public var previousKeyID: String?
    /// The version of the bundle that was replaced, when it was signed and its manifest readable.
    public var previousVersion: BundleVersion?
    /// The check of the new bundle.
    public var verification: BundleVerification
    /// Items removed from `tmp/`, which an update clears (the SPEC leaves it "not guaranteed").
    public var removedTemporaryItems: Int
    /// Clean-up that failed after the new bundle was in place: the update stands, but these
    /// leftovers (hidden, under `Containers/Bundle`) or `tmp/` items remain. Empty when all went well.
    public var warnings: [String]
}

extension SandboxHome {
    /// The steps of an update, for tests that inject a failure at one of them.
    enum UpdateStep: Sendable {
        /// The new bundle is copied, sealed and checked, and not yet in place.
        case staged
    }

    /// Replaces an installed app's bundle with the signed bundle directory at `bundleDirectory`,
    /// keeping its data.
    ///
    /// The new bundle is copied next to the old one (`Containers/Bundle/.updating-…`), made
    /// read-only and checked against its manifest; then the two bundle containers are swapped in
    /// one step with `renameat2(RENAME_EXCHANGE)`, and only then is the old bundle deleted. Until
    /// the swap nothing of the installed app has changed, so any failure (a bad signature, a
    /// bundle that does not match its manifest, a full disk mid-copy, a crash) leaves the old app
    /// working and its data intact; the staged copy is removed, or swept by the next update.
    ///
    /// What survives, per the SPEC's table: `Documents/` (with `Inbox/`), `Library/` (so
    /// `Preferences/`, `Application Support/` and `Caches/`) are kept untouched; `tmp/` is cleared
    /// after the swap; the keychain, which lives in the device home, is not touched.
    ///
    /// The new bundle must be signed for `app` (its manifest names the app) and its version may not
    /// be lower than the installed one's; the same version is accepted, so that re-installing it
    /// repairs a modified bundle. All of this is checked on the host directory before anything is
    /// copied (see ``createContainer(for:bundleDirectory:fileSharing:)``).
    ///
    /// - Parameters:
    ///   - app: the installed app to update.
    ///   - bundleDirectory: the host path of the signed bundle directory to install; it is copied,
    ///     never moved or changed.
    ///   - allowingNewSigner: accept a bundle signed by another trusted key than the installed one.
    ///     By default an update must come from the installed bundle's signer (as iOS requires the
    ///     same team); an app installed without a bundle accepts any trusted signer. It also
    ///     replaces an installed bundle whose signature cannot be read. It never allows a lower
    ///     version.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed or the
    ///   directory is missing; ``SandboxCore/SandboxError/Code/signatureInvalid`` for an unsigned
    ///   or badly signed bundle; ``SandboxCore/SandboxError/Code/untrustedKey`` for a signer the
    ///   device does not trust, or another signer than the installed one;
    ///   ``SandboxCore/SandboxError/Code/identifierMismatch`` for a bundle signed for another app;
    ///   ``SandboxCore/SandboxError/Code/downgrade`` for a lower version than the installed one;
    ///   ``SandboxCore/SandboxError/Code/bundleModified`` when the bundle or its copy does not
    ///   match the manifest; file-system errors.
    @discardableResult
    public func update(
        _ app: AppIdentifier, bundleDirectory: String, allowingNewSigner: Bool = false
    ) throws(SandboxError) -> UpdateReport {
        try update(app, bundleDirectory: bundleDirectory, allowingNewSigner: allowingNewSigner) {
            _ throws(SandboxError) in
        }
    }

    func update(
        _ app: AppIdentifier,
        bundleDirectory: String,
        allowingNewSigner: Bool,
        faultInjection: (UpdateStep) throws(SandboxError) -> Void
    ) throws(SandboxError) -> UpdateReport {
        let installed = try container(for: app)
        let previous = try installedSignature(of: installed, allowingUnknownSigner: allowingNewSigner)
        let requirements = BundleRequirements(
            app: app,
            requiresSignature: true,
            signer: allowingNewSigner ? nil : previous?.key,
            minimumVersion: previous?.version
        )
        try sweepUpdateDebris(for: app)
        let stage = Self.bundleContainers.appendingName(
            ".updating-\(RandomToken.make())-\(app.rawValue)")
        let name = Self.bundleName(for: app, from: bundleDirectory)
        let verification: BundleVerification
        do throws(SandboxError) {
            try root.createDirectory(at: stage)
            verification = try stageBundle(
                fromHost: bundleDirectory, at: stage.appendingName(name), requirements: requirements)
            try faultInjection(.staged)
            // The one moment a program running from the bundle would notice: the live users
            // are told (a `sandbox run` program refuses it) around the exchange only.
            try coordinating(.update, of: app) { () throws(SandboxError) in
                try root.exchangeItems(at: Self.bundlePath(app), with: stage)
            }
        } catch {
            // Roll back what this call made; the original error is what the caller needs.
            _ = try? root.removeItem(at: stage, recursively: true)  // cleanup only: `error` propagates
            throw error
        }
        // The new bundle is in place: from here on the update stands, and clean-up failures are
        // reported, not thrown.
        var warnings: [String] = []
        do throws(SandboxError) {
            try root.removeItem(at: stage, recursively: true)
        } catch {
            warnings.append(
                "The old bundle could not be removed from '\(root.displayPath(of: stage))' (\(error.message)); the next update removes it."
            )
        }
        var removed = 0
        do throws(SandboxError) {
            if let tmp = ContainerDirectory.tmp.path { removed = try installed.root.removeContents(of: tmp) }
        } catch {
            warnings.append("tmp/ of '\(app)' could not be cleared (\(error.message)); restarting the app clears it.")
        }
        return UpdateReport(
            app: app.rawValue,
            bundle: try container(for: app).hostPath(for: .bundle),
            previousKeyID: previous?.key.keyID,
            previousVersion: previous?.version,
            verification: verification,
            removedTemporaryItems: removed,
            warnings: warnings
        )
    }

    /// The signer and version of the installed bundle: `nil` for an empty unsigned placeholder.
    /// The version is `nil` when the manifest cannot be read (the update repairs the bundle).
    ///
    /// - Parameter allowingUnknownSigner: answer `nil` rather than throw when the bundle has files
    ///   but no readable signature.
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid`` when the bundle has files but
    ///   no readable signature (pass `allowingNewSigner` to replace it anyway).
    private func installedSignature(
        of container: Container, allowingUnknownSigner: Bool
    ) throws(SandboxError) -> (key: SigningPublicKey, version: BundleVersion?)? {
        let bundle = ContainerPath.root.appendingName(container.bundleName)
        let path = bundle.appendingComponents(of: BundleManifest.signatureFile)
        let label = "'\(container.hostPath(for: .bundle))/_CodeSignature/signature'"
        let key: SigningPublicKey
        do throws(SandboxError) {
            let bytes = try container.bundleRoot.readContents(of: path, maximumSize: 4096)
            key = try BundleSignature(storedBytes: bytes, source: label).key
        } catch  where error.code == .notFound {
            if !allowingUnknownSigner, try !container.bundleRoot.contentsOfDirectory(at: bundle).isEmpty {
                throw SandboxError(
                    .signatureInvalid,
                    "The installed bundle of '\(container.identifier)' has no signature, so its signer is unknown. Pass --allow-new-signer (allowingNewSigner) to replace it.",
                    path: path.description)
            }
            return nil
        } catch  where error.code == .signatureInvalid {
            guard allowingUnknownSigner else {
                throw SandboxError(
                    .signatureInvalid,
                    "\(error.message) The installed bundle's signer is unknown: pass --allow-new-signer (allowingNewSigner) to replace it.",
                    path: path.description)
            }
            return nil
        }
        let manifestPath = bundle.appendingComponents(of: BundleManifest.manifestFile)
        do throws(SandboxError) {
            let bytes = try container.bundleRoot.readContents(of: manifestPath)
            return (
                key,
                try BundleManifest(storedBytes: bytes, source: container.bundleRoot.displayPath(of: manifestPath))
                    .identity.version
            )
        } catch  where error.code == .notFound || error.code == .corrupt {
            return (key, nil)  // no version to keep to: the signer still decides (`error` is why)
        }
    }

    /// Removes the staged bundles of updates of `app` that a crash interrupted.
    private func sweepUpdateDebris(for app: AppIdentifier) throws(SandboxError) {
        // Named `.updating-<random base 36>-<app-id>`: the random part has no '-', so the rest is the app.
        for entry in try root.contentsOfDirectory(at: Self.bundleContainers) where entry.name.hasPrefix(".updating-") {
            guard entry.name.dropFirst(".updating-".count).drop(while: { $0 != "-" }).dropFirst() == app.rawValue else {
                continue
            }
            try root.removeItem(at: entry.path, recursively: true)
        }
    }
}
