import SandboxCore
import SystemPackage

extension BundleManifest {
    /// The manifest of the bundle directory `bundle` beneath `root`, as it is on disk now: every
    /// file hashed, `_CodeSignature/` left out.
    ///
    /// - Throws: ``SandboxError/Code/unsupported`` naming the first symbolic link, FIFO, socket or
    ///   device found (bundles hold only files and directories); file-system errors.
    init(scanning bundle: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        var entries: [Entry] = []
        let digest = FileDigest()
        try root.enumerate(at: bundle, recursive: true, prefetchingAttributes: true) { item throws(SandboxError) in
            let relative = item.path.relative(to: bundle)
            if relative.components.first == Self.signatureDirectory.description { return }
            guard let attributes = item.attributes else { return }  // removed while being listed
            let mode = UInt16(attributes.permissions.rawValue & 0o7777)
            switch item.type {
            case .directory:
                entries.append(Entry(path: relative, kind: .directory, mode: mode, size: 0, sha256: nil))
            case .regular:
                let file = try digest.sha256(of: item.path, in: root)
                entries.append(Entry(path: relative, kind: .file, mode: mode, size: file.size, sha256: file.hex))
            default:
                throw SandboxError(.unsupported, "'\(relative)' in the bundle is a \(item.type); a bundle may hold only files and directories. Replace it with a copy of what it stands for, then sign again.", path: relative.description)
            }
        }
        self.init(entries: entries)
    }
}

extension ContainerPath {
    /// This path without the leading components of `base`, which it must start with.
    func relative(to base: ContainerPath) -> ContainerPath {
        var result = ContainerPath.root
        for component in components.dropFirst(base.components.count) { result = result.appendingName(component) }
        return result
    }
}
