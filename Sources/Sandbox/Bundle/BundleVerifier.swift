import SandboxCore
import SystemPackage

/// What a successful bundle check found.
public struct BundleVerification: Sendable, Hashable, Codable {
    /// Whether the bundle is signed. An unsigned bundle is accepted only when it is the placeholder
    /// `sandbox create` makes for an app installed without `--bundle`: empty, or holding only the
    /// ``BundleInfoFile/fileSharingPlaceholder`` `Info.plist`.
    public var isSigned: Bool
    /// The signer's ``SigningPublicKey/keyID``, when signed.
    public var keyID: String?
    /// Files checked (their SHA-256 recomputed).
    public var files: Int
    /// Directories checked.
    public var directories: Int
    /// Bytes hashed.
    public var bytes: Int64
    /// The app and version the signature binds the bundle to, when signed.
    public var identity: BundleIdentity?
    /// The App Groups the signed manifest lists (``BundleManifest/appGroups``); none for an
    /// unsigned placeholder, which can belong to no group.
    public var appGroups: [AppGroupIdentifier]

    /// The report of an empty unsigned placeholder.
    static let unsigned = BundleVerification(
        isSigned: false, keyID: nil, files: 0, directories: 0, bytes: 0, identity: nil, appGroups: [])
}

/// What ``BundleVerifier/check(_:in:trustedKeys:label:comparingPermissions:)`` found.
struct BundleCheck {
    /// The counts and the signer.
    var report: BundleVerification
    /// Every difference from the manifest; empty when the bundle is as signed.
    var changes: [BundleChange]
    /// The signed manifest; `nil` for an empty unsigned placeholder.
    var manifest: BundleManifest?
}

/// Checks a bundle against its signature and manifest.
enum BundleVerifier {
    /// The remedy for an unsigned or badly signed bundle.
    static let signRemedy = "Sign the bundle with a signing key."

    /// Reads and checks the signature of the bundle at `bundle` beneath `root`: the signature must
    /// be valid for the manifest's bytes and made with a key in `trustedKeys`.
    ///
    /// - Returns: the signature and manifest, or `nil` for an unsigned placeholder
    ///   (``BundleInfoFile/isPlaceholder(_:in:)``).
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid`` for a missing, unreadable or
    ///   wrong signature (a manifest changed after signing);
    ///   ``SandboxCore/SandboxError/Code/untrustedKey`` when the signer is not trusted;
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a signed but malformed manifest.
    static func signature(
        of bundle: ContainerPath,
        in root: ConfinedRoot,
        trustedKeys: Set<SigningPublicKey>,
        label: String
    ) throws(SandboxError) -> (signature: BundleSignature, manifest: BundleManifest)? {
        let signaturePath = bundle.appendingComponents(of: BundleManifest.signatureFile)
        let manifestPath = bundle.appendingComponents(of: BundleManifest.manifestFile)
        let signatureBytes: [UInt8]
        let manifestBytes: [UInt8]
        do throws(SandboxError) {
            signatureBytes = try root.readContents(of: signaturePath, maximumSize: 4096)
            manifestBytes = try root.readContents(of: manifestPath)
        } catch  where error.code == .notFound {
            guard try BundleInfoFile.isPlaceholder(bundle, in: root) else {
                throw SandboxError(
                    .signatureInvalid,
                    "\(label) is not signed: '_CodeSignature/manifest.json' or '_CodeSignature/signature' is missing. \(signRemedy)",
                    path: bundle.description)
            }
            return nil
        }
        let signature = try BundleSignature(storedBytes: signatureBytes, source: "\(label)/_CodeSignature/signature")
        guard signature.isValid(for: manifestBytes) else {
            throw SandboxError(
                .signatureInvalid,
                "The signature of \(label) does not match '_CodeSignature/manifest.json': the manifest was changed after signing, or the signature belongs to another manifest. \(signRemedy)",
                path: bundle.description)
        }
        guard trustedKeys.contains(signature.key) else {
            throw SandboxError(
                .untrustedKey,
                "\(label) is signed by key \(signature.key), which this device does not trust. Trust the signer's public key, or sign with a trusted key.",
                path: bundle.description)
        }
        let manifest = try BundleManifest(storedBytes: manifestBytes, source: "\(label)/_CodeSignature/manifest.json")
        return (signature, manifest)
    }

    /// Checks the signature, then every item of the bundle against the manifest: contents
    /// (streamed SHA-256), sizes, types, and the read-only permission bits set at install.
    ///
    /// Nothing is followed or changed: a symbolic link, FIFO, socket or device is a change (of type
    /// where the manifest has a file or directory, else an addition), never opened.
    ///
    /// - Parameter comparingPermissions: whether permission bits must be the sealed ones (`false`
    ///   for a bundle not installed yet).
    /// - Returns: what was found; the caller decides what a change means.
    /// - Throws: the errors of ``signature(of:in:trustedKeys:label:)``, and file-system errors.
    static func check(
        _ bundle: ContainerPath,
        in root: ConfinedRoot,
        trustedKeys: Set<SigningPublicKey>,
        label: String,
        comparingPermissions: Bool = true
    ) throws(SandboxError) -> BundleCheck {
        guard let (signature, manifest) = try signature(of: bundle, in: root, trustedKeys: trustedKeys, label: label)
        else {
            return BundleCheck(report: .unsigned, changes: [], manifest: nil)
        }
        var expected: [ContainerPath: BundleManifest.Entry] = [:]
        for entry in manifest.entries { expected[entry.path] = entry }
        var changes: [BundleChange] = []
        var report = BundleVerification(
            isSigned: true, keyID: signature.key.keyID, files: 0, directories: 0, bytes: 0, identity: manifest.identity,
            appGroups: manifest.appGroups)
        let digest = FileDigest()
        try root.enumerate(at: bundle, recursive: true, prefetchingAttributes: true) { item throws(SandboxError) in
            let relative = item.path.relative(to: bundle)
            guard let attributes = item.attributes else { return }  // vanished while listed: reported as removed
            let mode = UInt16(attributes.permissions.rawValue & 0o7777)
            if relative.names.first == BundleManifest.signatureDirectory.names.first {
                let isSignatureFile =
                    relative == BundleManifest.manifestFile || relative == BundleManifest.signatureFile
                let isSignatureItem =
                    relative.names.count == 1 ? item.type == .directory : isSignatureFile && item.type == .regular
                if !isSignatureItem {
                    changes.append(BundleChange(path: relative.description, kind: .added))
                } else if comparingPermissions, mode != (item.type == .directory ? 0o555 : 0o444) {
                    changes.append(BundleChange(path: relative.description, kind: .permissionsChanged))
                }
                return
            }
            guard let entry = expected.removeValue(forKey: relative) else {
                changes.append(BundleChange(path: relative.description, kind: .added))
                return
            }
            let change = try compare(
                item.path, item.type, comparingPermissions ? mode : nil, attributes.size, with: entry, in: root,
                digest: digest, report: &report)
            if let change { changes.append(BundleChange(path: relative.description, kind: change)) }
        }
        for entry in expected.values { changes.append(BundleChange(path: entry.path.description, kind: .removed)) }
        return BundleCheck(report: report, changes: changes, manifest: manifest)
    }

    private static func compare(
        _ path: ContainerPath,
        _ type: ItemType,
        _ mode: UInt16?,
        _ size: Int64,
        with entry: BundleManifest.Entry,
        in root: ConfinedRoot,
        digest: FileDigest,
        report: inout BundleVerification
    ) throws(SandboxError) -> BundleChange.Kind? {
        switch (entry.kind, type) {
        case (.directory, .directory):
            report.directories += 1
        case (.file, .regular):
            guard size == entry.size else { return .modified }
            let file = try digest.sha256(of: path, in: root)
            report.files += 1
            report.bytes += file.size
            guard file.size == entry.size, file.hex == entry.sha256 else { return .modified }
        default:
            return .typeChanged
        }
        guard let mode else { return nil }
        return mode == entry.sealedMode ? nil : .permissionsChanged
    }
}
