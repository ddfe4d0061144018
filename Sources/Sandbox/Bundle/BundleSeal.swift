import SandboxCore
import SystemPackage

/// Makes an installed bundle read-only: files 0444 (0555 when signed executable), directories
/// 0555, the signature too.
///
/// The bits stop the app and other users, not root: the manifest check at every open is the real
/// protection, and it also flags any permission bits that differ from these.
enum BundleSeal {
    /// Seals the bundle whose directory is `bundle`'s root. Every change is confined to the bundle
    /// and made on the item itself, never through a symbolic link; the caller has checked the
    /// bundle against `manifest` first, so every path names a file or directory.
    static func seal(in bundle: ConfinedRoot, manifest: BundleManifest) throws(SandboxError) {
        // Children before their parents (the reverse of path order), so a directory is closed last.
        for entry in manifest.entries.reversed() {
            try bundle.setPermissions(FilePermissions(rawValue: CInterop.Mode(entry.sealedMode)), at: entry.path)
        }
        for file in [BundleManifest.manifestFile, BundleManifest.signatureFile] {
            try bundle.setPermissions(FilePermissions(rawValue: 0o444), at: file)
        }
        try bundle.setPermissions(FilePermissions(rawValue: 0o555), at: BundleManifest.signatureDirectory)
        try bundle.setPermissions(FilePermissions(rawValue: 0o555), at: .root)
    }
}
