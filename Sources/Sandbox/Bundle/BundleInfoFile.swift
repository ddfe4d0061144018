import Crypto
import SandboxCore

/// A bundle's `Info.plist`: where the app declares what the device does for it (file sharing,
/// the documents it opens). Its keys are read by SandboxStore, which owns the property-list
/// readers; this module hands out only bytes the installed bundle vouches for.
public enum BundleInfoFile {
    /// `Info.plist`, at the top of the `.app` directory.
    public static let path = ContainerPath(constant: "Info.plist")
    /// The largest `Info.plist` read: 1 MiB (an app's is a few KiB).
    public static let maximumSize = 1 << 20

    /// The `Info.plist` of the placeholder bundle of an app created without a bundle but with file
    /// sharing (``SandboxHome/createContainer(for:bundleDirectory:fileSharing:)``): it declares
    /// `UIFileSharingEnabled` and nothing else. An unsigned bundle may hold this file, byte for
    /// byte, and nothing else: the placeholder vouches for nothing an app could have written.
    public static let fileSharingPlaceholder: [UInt8] = Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>UIFileSharingEnabled</key>
        \t<true/>
        </dict>
        </plist>

        """.utf8)

    /// Whether the unsigned bundle at `bundle` beneath `root` is a placeholder: empty, or holding
    /// only ``fileSharingPlaceholder`` as a regular `Info.plist`.
    static func isPlaceholder(_ bundle: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> Bool {
        let entries = try root.contentsOfDirectory(at: bundle)
        guard let only = entries.first else { return true }
        guard entries.count == 1, only.type == .regular, only.name == path.description else { return false }
        do throws(SandboxError) {
            let bytes = try root.openSubroot(at: bundle, refusingSymlinks: true)
                .readContents(of: path, maximumSize: fileSharingPlaceholder.count)
            return bytes == fileSharingPlaceholder
        } catch  where error.code == .fileTooLarge || error.code == .symlinkLoop {
            return false  // larger than the placeholder, or a link: not it
        }
    }
}

extension Container {
    /// The bytes of the installed bundle's `Info.plist`, vouched for by the bundle: for a signed
    /// bundle, the bytes read are the ones its signed manifest lists (their SHA-256 compared, so
    /// nothing changed between a check and the read); for an unsigned placeholder, exactly
    /// ``BundleInfoFile/fileSharingPlaceholder``. `nil` when the bundle has no `Info.plist` (an
    /// empty placeholder, a signed bundle without one). The file is read without following a
    /// symbolic link, at most ``BundleInfoFile/maximumSize`` bytes.
    ///
    /// Only `Info.plist` is checked, not the whole bundle (``verifyBundle(trustedKeys:)`` does that).
    ///
    /// - Parameter trustedKeys: the keys the device trusts (``SandboxHome/trustedKeys()``).
    /// - Throws: ``SandboxCore/SandboxError/Code/bundleModified`` when `Info.plist` differs from
    ///   the signed one, was added or removed; ``SandboxCore/SandboxError/Code/signatureInvalid``
    ///   and ``SandboxCore/SandboxError/Code/untrustedKey`` as ``verifyBundle(trustedKeys:)``
    ///   (an unsigned bundle that is not a placeholder); ``/SandboxCore/SandboxError/Code/fileTooLarge``
    ///   past the limit; ``/SandboxCore/SandboxError/Code/symlinkLoop`` for a symbolic link;
    ///   file-system errors.
    public func verifiedInfoPlist(trustedKeys: Set<SigningPublicKey>) throws(SandboxError) -> [UInt8]? {
        let bundle = ContainerPath.root.appendingName(bundleName)
        let label = "the bundle of '\(identifier)'"
        let shown = infoPlistHostPath
        let signed = try BundleVerifier.signature(of: bundle, in: bundleRoot, trustedKeys: trustedKeys, label: label)
        let entry = signed?.manifest.entries.first { $0.path == BundleInfoFile.path }
        let bytes: [UInt8]?
        do throws(SandboxError) {
            bytes = try bundleRoot.openSubroot(at: bundle, refusingSymlinks: true)
                .readContents(of: BundleInfoFile.path, maximumSize: BundleInfoFile.maximumSize)
        } catch  where error.code == .notFound {
            bytes = nil
        } catch  where error.code == .fileTooLarge {
            throw SandboxError(
                .fileTooLarge,
                "'\(shown)' is larger than \(BundleInfoFile.maximumSize) bytes, the most read of an Info.plist; "
                    + "its keys are not read.",
                path: shown, underlying: .wrapping(error))
        } catch  where error.code == .symlinkLoop {
            throw SandboxError(
                .symlinkLoop, "'\(shown)' is a symbolic link, which is not followed: its keys are not read.",
                path: shown, underlying: .wrapping(error))
        }
        guard signed != nil else {
            guard bytes == nil || bytes == BundleInfoFile.fileSharingPlaceholder else {
                throw SandboxError(
                    .signatureInvalid,
                    "\(label) is not signed, and its 'Info.plist' is not the placeholder's: an unsigned bundle "
                        + "vouches for nothing. \(BundleVerifier.signRemedy)",
                    path: shown)
            }
            return bytes
        }
        switch (entry, bytes) {
        case (nil, nil):
            return nil
        case (let entry?, let bytes?)
        where entry.kind == .file && Hex.string(SHA256.hash(data: bytes)) == entry.sha256:
            return bytes
        default:
            let change = entry == nil ? "added" : bytes == nil ? "removed" : "modified"
            throw SandboxError(
                .bundleModified,
                "'Info.plist' of the bundle of '\(identifier)' was \(change) after it was signed: its keys are not "
                    + "trusted. Reinstall the app from its signed bundle.",
                path: shown)
        }
    }

    /// The host path of the bundle's `Info.plist`, for messages.
    public var infoPlistHostPath: String { hostPath(for: .bundle) + "/" + BundleInfoFile.path.description }
}
