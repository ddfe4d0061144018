import SandboxCore

/// Signs bundle directories on the host (`sandbox sign`).
public enum BundleSigner {
    /// What signing did.
    public struct Report: Sendable, Hashable, Codable {
        /// Files in the manifest.
        public var files: Int
        /// Directories in the manifest.
        public var directories: Int
        /// Bytes hashed.
        public var bytes: Int64
        /// The signer's ``SigningPublicKey/keyID``.
        public var keyID: String
        /// The app and version the signature binds the bundle to.
        public var identity: BundleIdentity
        /// The App Groups signed into the manifest.
        public var appGroups: [AppGroupIdentifier]
    }

    /// Writes `_CodeSignature/manifest.json` and `_CodeSignature/signature` into the bundle
    /// directory at `hostPath`, replacing an earlier signature. Each file is written atomically
    /// and durably, the manifest first.
    ///
    /// - Parameters:
    ///   - hostPath: the host path of the bundle directory to sign.
    ///   - key: the private key that signs the manifest.
    ///   - identity: the app the bundle is for and its version, signed into the manifest: the
    ///     bundle then installs only as that app, and never replaces a higher version. The caller
    ///     decides them (`sandbox sign` reads them from the bundle's `Info.plist`).
    ///   - appGroups: the App Groups the bundle belongs to, signed into the manifest
    ///     (``BundleManifest/appGroups``): the one place membership is read from. The caller
    ///     decides them (`sandbox sign` reads `com.apple.security.application-groups` from the
    ///     bundle's entitlements, `archived-expanded-entitlements.xcent`, which the manifest then
    ///     covers like every file).
    /// - Throws: ``/SandboxCore/SandboxError/Code/unsupported`` naming a symbolic link, FIFO,
    ///   socket or device in the bundle; ``/SandboxCore/SandboxError/Code/notFound`` /
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` for a bad `hostPath`; file-system errors.
    ///   On error no new signature is in place; an old one may remain, and no longer matches if the
    ///   bundle changed.
    @discardableResult
    public static func sign(
        bundleAt hostPath: String, with key: SigningKey, identity: BundleIdentity,
        appGroups: [AppGroupIdentifier] = []
    ) throws(SandboxError) -> Report {
        let root = try ConfinedRoot(openingDirectoryAt: hostPath)
        switch try root.attributes(at: BundleManifest.signatureDirectory, followingSymlink: false)?.type {
        case nil:
            try root.createDirectory(at: BundleManifest.signatureDirectory)
        case .directory?:
            break
        case let other?:
            throw SandboxError(
                .alreadyExists,
                "'\(hostPath)/_CodeSignature' is a \(other), not a directory; the signature goes there. Move it away and sign again.",
                path: "_CodeSignature")
        }
        let manifest = try BundleManifest(scanning: .root, in: root, identity: identity, appGroups: appGroups)
        let bytes = manifest.canonicalBytes
        let signature = try BundleSignature(signing: bytes, with: key)
        try root.writeContents(bytes, to: BundleManifest.manifestFile, options: [.atomic, .durable])
        try root.writeContents(signature.storedBytes, to: BundleManifest.signatureFile, options: [.atomic, .durable])
        let files = manifest.entries.filter { $0.kind == .file }.count
        return Report(
            files: files, directories: manifest.entries.count - files, bytes: manifest.totalSize,
            keyID: key.publicKey.keyID, identity: identity, appGroups: manifest.appGroups)
    }
}
