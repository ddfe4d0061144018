import SandboxCore
import SystemPackage

extension BundleManifest {
    /// The manifest of the bundle directory `bundle` beneath `root`, as it is on disk now: every
    /// file hashed, `_CodeSignature/` left out, `identity` and `appGroups` recorded.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/unsupported`` naming the first symbolic link,
    ///   FIFO, socket or device found (bundles hold only files and directories), or the first name
    ///   that is not valid UTF-8 (shown escaped; APFS, where bundles come from, allows no other);
    ///   file-system errors.
    init(
        scanning bundle: ContainerPath, in root: ConfinedRoot, identity: BundleIdentity,
        appGroups: [AppGroupIdentifier] = []
    ) throws(SandboxError) {
        var entries: [Entry] = []
        let digest = FileDigest()
        try root.enumerate(at: bundle, recursive: true, prefetchingAttributes: true) { item throws(SandboxError) in
            let relative = item.path.relative(to: bundle)
            if relative.names.first == Self.signatureDirectory.names.first { return }
            guard relative.lastName?.isValidUTF8 != false else {
                throw SandboxError(
                    .unsupported,
                    "The name of '\(relative)' in the bundle is not valid UTF-8 (its bytes that are not are shown as \\xHH); a bundle's names must be, as on APFS. Rename it, then sign again.",
                    path: relative.description)
            }
            guard let attributes = item.attributes else { return }  // removed while being listed
            let mode = UInt16(attributes.permissions.rawValue & 0o7777)
            switch item.type {
            case .directory:
                entries.append(Entry(path: relative, kind: .directory, mode: mode, size: 0, sha256: nil))
            case .regular:
                let file = try digest.sha256(of: item.path, in: root)
                entries.append(Entry(path: relative, kind: .file, mode: mode, size: file.size, sha256: file.hex))
            default:
                throw SandboxError(
                    .unsupported,
                    "'\(relative)' in the bundle is a \(item.type); a bundle may hold only files and directories. Replace it with a copy of what it stands for, then sign again.",
                    path: relative.description)
            }
        }
        self.init(entries: entries, identity: identity, appGroups: appGroups)
    }
}

extension ContainerPath {
    /// This path without the leading names of `base`, which it must start with; names are kept
    /// byte for byte.
    func relative(to base: ContainerPath) -> ContainerPath {
        names.dropFirst(base.names.count).reduce(ContainerPath.root) { $0.appending($1) }
    }
}
