import CSandboxShims
import Glibc
import SandboxCore
import SystemPackage

/// What fs-verity does for an installed bundle's files.
public enum VerityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Every regular file of the bundle has fs-verity: immutable, and each read verified by the
    /// kernel against the file's Merkle tree.
    case enabled(files: Int)
    /// The file system offers no fs-verity (`reason` says what the kernel answered): the bundle is
    /// checked against its signed manifest when the app is opened, as before.
    case unsupported(reason: String)

    /// For messages: how many files fs-verity covers, or why the file system offers
    /// none and what checks the bundle instead.
    public var description: String {
        switch self {
        case .enabled(let files): "enabled on \(files) file(s): immutable and verified by the kernel on every read"
        case .unsupported(let reason):
            "unsupported here (\(reason)); the bundle is checked against its signed manifest at open instead"
        }
    }
}

extension AppBundle {
    /// Turns fs-verity on (`FS_IOC_ENABLE_VERITY`, SHA-256, 4 KiB blocks) for every regular file of
    /// the bundle, and reports whether the file system supports it. Files that already have it are
    /// counted; the first file the file system refuses ends the probe as
    /// ``VerityStatus/unsupported(reason:)`` and nothing else changes.
    ///
    /// - Throws: resolution and file-system errors listing or opening the bundle's files.
    public func enableVerity() throws(SandboxError) -> VerityStatus {
        var files = 0
        for entry in try root.contentsOfDirectory(at: .root, recursive: true) where entry.type == .regular {
            let result = try root.withFile(at: entry.path) { file throws(SandboxError) in
                try file.withUnsafeDescriptor { descriptor throws(SandboxError) in
                    csb_enable_verity(descriptor.rawValue) == 0 ? 0 : errno
                }
            }
            switch result {
            case 0, EEXIST: files += 1
            case EOPNOTSUPP, ENOTTY, ENOSYS, EINVAL, EPERM, EACCES:
                let name = String(cString: strerror(result))
                return .unsupported(reason: "FS_IOC_ENABLE_VERITY on '\(entry.path)': \(name)")
            default:
                throw SandboxError(
                    .io,
                    "fs-verity could not be enabled on the bundle file '\(entry.path)': \(String(cString: strerror(result))).",
                    path: entry.path.description)
            }
        }
        return .enabled(files: files)
    }
}
