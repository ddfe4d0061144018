import SandboxCore
import SystemPackage

/// Makes an installed bundle read-only: files 0444 (0555 when signed executable), directories
/// 0555, the signature too.
///
/// The bits stop the app and other users, not root: the manifest check at every open is the real
/// protection, and it also flags any permission bits that differ from these.
enum BundleSeal {
    static func seal(_ bundle: ContainerPath, in root: ConfinedRoot, manifest: BundleManifest) throws(SandboxError) {
        // Children before their parents (the reverse of path order), so a directory is closed last.
        for entry in manifest.entries.reversed() {
            try root.setPermissions(FilePermissions(rawValue: CInterop.Mode(entry.sealedMode)), at: bundle.appendingComponents(of: entry.path))
        }
        for file in [BundleManifest.manifestFile, BundleManifest.signatureFile] {
            try root.setPermissions(FilePermissions(rawValue: 0o444), at: bundle.appendingComponents(of: file))
        }
        try root.setPermissions(FilePermissions(rawValue: 0o555), at: bundle.appendingComponents(of: BundleManifest.signatureDirectory))
        try root.setPermissions(FilePermissions(rawValue: 0o555), at: bundle)
    }
}
