import SandboxCore

/// What a bundle's signature binds it to: the app it is for and its version.
///
/// Both are part of the signed manifest, so they cannot be changed without the signer's key: a
/// bundle installs only as the app it names (``SandboxHome/createContainer(for:bundleDirectory:fileSharing:)``),
/// and an update never installs a lower version (``SandboxHome/update(_:bundleDirectory:allowingNewSigner:)``).
///
/// The signer gives them (``BundleSigner/sign(bundleAt:with:identity:appGroups:)``); the library reads no
/// `Info.plist`. `sandbox sign` takes them from the bundle's `Info.plist` (`CFBundleIdentifier`,
/// `CFBundleVersion`), so a bundle signed with it says the same in both places.
public struct BundleIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app the bundle is for (`CFBundleIdentifier`).
    public var identifier: AppIdentifier
    /// The bundle's version (`CFBundleVersion`).
    public var version: BundleVersion

    /// An identity from an app identifier and a version, both already validated by their types.
    public init(identifier: AppIdentifier, version: BundleVersion) {
        self.identifier = identifier
        self.version = version
    }

    /// The identifier and the version separated by a space: `com.example.notes 1.2`.
    public var description: String { "\(identifier) \(version)" }
}
