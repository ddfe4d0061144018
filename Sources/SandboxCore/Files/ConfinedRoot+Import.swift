import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Copies a file or directory tree from the host into the root at `path`, which must not exist.
    ///
    /// The host side is the caller's and is read as given (a symlink at `hostPath` is followed;
    /// symlinks inside a tree are copied as symlinks). The root side is confined as always.
    ///
    /// - Returns: how many items were copied.
    /// - Throws: ``SandboxError/Code/notFound`` for a missing host item, and the errors of
    ///   ``copyItem(from:to:)``.
    @discardableResult
    public func importItem(fromHost hostPath: String, to path: ContainerPath) throws(SandboxError) -> Int {
        let input = OwnedDescriptor(
            taking: try syscall("open", path: hostPath) {
                Glibc.open(hostPath, O_RDONLY | O_NONBLOCK | CSB_O_CLOEXEC)
            })
        var info = stat()
        _ = try syscall("fstat", path: hostPath) { fstat(input.rawValue, &info) }
        let parent = try openParent(of: path)
        return try copyTree(input.rawValue, info, into: parent, source: path, destination: path)
    }

    /// Creates the directory at `hostPath` on the host with any missing parents (`mkdir -p`), then
    /// opens it as a root. For setting up a device home; containers are created through the root.
    /// The directories it creates are private (`0700`, `FilePermissions.privateDirectory`);
    /// existing ones are left as they are.
    ///
    /// - Throws: ``SandboxError/Code/notADirectory`` when a file is in the way,
    ///   ``SandboxError/Code/permissionDenied``, and the errors of ``init(openingDirectoryAt:resolution:)``.
    public static func creatingDirectory(
        atHostPath hostPath: String, resolution: Resolution = .automatic
    ) throws(SandboxError) -> ConfinedRoot {
        var prefix = hostPath.hasPrefix("/") ? "" : "."
        for component in hostPath.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, FilePermissions.privateDirectory.rawValue) != 0 && errno != EEXIST {
                throw .systemCall("mkdir", errno: Errno(rawValue: errno), path: prefix)
            }
        }
        return try ConfinedRoot(openingDirectoryAt: hostPath, resolution: resolution)
    }
}
