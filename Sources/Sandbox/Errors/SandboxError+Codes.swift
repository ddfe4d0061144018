import SandboxCore

/// The codes of this module's own failures: app identifiers and signed bundles. The core knows
/// nothing of apps or bundles; these codes are added to its ``SandboxError/Code`` from here.
extension SandboxError.Code {
    /// An app identifier is not reverse-DNS.
    public static let invalidAppIdentifier = Self("invalid-app-identifier")
    /// A signature does not verify, is missing, or is not in the expected format.
    public static let signatureInvalid = Self("signature-invalid")
    /// A signature verifies, but with a key this device does not trust.
    public static let untrustedKey = Self("untrusted-key")
    /// A signed app bundle's files differ from its manifest: changed, added or removed.
    public static let bundleModified = Self("bundle-modified")
    /// A bundle was signed for another app than the one it is installed or updated as.
    public static let identifierMismatch = Self("identifier-mismatch")
    /// An update's bundle version is lower than the installed one's.
    public static let downgrade = Self("downgrade")
    /// An App Group identifier is not `group.` followed by a reverse-DNS name, or a bundle lists
    /// too many groups.
    public static let invalidAppGroupIdentifier = Self("invalid-app-group-identifier")
    /// An app asked for an App Group its signed bundle does not list.
    public static let notAGroupMember = Self("not-a-group-member")
    /// An app's `Info.plist` does not declare file sharing (`UIFileSharingEnabled`): the share refuses it.
    public static let fileSharingDisabled = Self("file-sharing-disabled")
    /// An app's `Info.plist` holds a key it acts on with the wrong type or shape.
    public static let invalidInfoPlist = Self("invalid-info-plist")
    /// No document type of an app's `Info.plist` (`CFBundleDocumentTypes`) accepts a document.
    public static let documentTypeNotAccepted = Self("document-type-not-accepted")
    /// `sandboxd` could not be reached or started (the same code as `SandboxError`'s).
    public static let daemonUnavailable = Self("daemon-unavailable")
    /// A connection to `sandboxd` was refused for the app it was asked for.
    public static let daemonRefused = Self("daemon-refused")
}
