import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Moves the item at `source` to `destination`, both inside the root, with `renameat2`.
    ///
    /// A symlink is moved itself. Across file systems mounted inside the container the item is
    /// copied, then the original removed.
    ///
    /// - Parameters:
    ///   - source: the item to move, relative to the root.
    ///   - destination: its new path, relative to the root; its parent directory must exist.
    ///   - replacingExisting: replace an item already at `destination` (for directories, only an
    ///     empty one). Without it the move fails rather than overwrite.
    /// - Throws: ``SandboxError/Code/alreadyExists``, ``SandboxError/Code/notFound``,
    ///   ``SandboxError/Code/invalidArgument`` for a directory moved into itself, and resolution
    ///   errors such as ``SandboxError/Code/escapesContainer`` for either path.
    public func moveItem(
        from source: ContainerPath, to destination: ContainerPath, replacingExisting: Bool = false
    ) throws(SandboxError) {
        let sourceParent = try openParent(of: source)
        let sourceName = sourceParent.name.cString
        let destinationParent = try openParent(of: destination)
        let destinationName = destinationParent.name.cString
        let flags = replacingExisting ? 0 : CSB_RENAME_NOREPLACE
        if csb_renameat2(sourceParent.rawValue, sourceName, destinationParent.rawValue, destinationName, flags) == 0 {
            return
        }
        switch Errno(rawValue: errno) {
        case .invalidArgument where flags != 0 && !Self.isMovingIntoItself(source, destination):
            // The file system lacks RENAME_NOREPLACE: a hard link is exclusive too (for files).
            _ = try syscall("linkat", path: destination.description) {
                linkat(sourceParent.rawValue, sourceName, destinationParent.rawValue, destinationName, 0)
            }
            _ = try syscall("unlinkat", path: source.description) { unlinkat(sourceParent.rawValue, sourceName, 0) }
        case .invalidArgument:
            throw .rule(
                .invalidArgument, "'\(source)' cannot be moved into itself ('\(destination)').",
                path: source.description)
        case .improperLink:
            try copyItem(from: source, to: destination)
            try removeItem(at: source, recursively: true)
        case let error:
            throw .systemCall(
                "renameat2", errno: error, path: error == .fileExists ? destination.description : source.description)
        }
    }

    /// Renames the item at `path` within its directory.
    ///
    /// - Throws: ``SandboxError/Code/invalidPath`` when `newName` is not a single name, and the
    ///   errors of ``moveItem(from:to:replacingExisting:)``.
    public func renameItem(at path: ContainerPath, to newName: String) throws(SandboxError) {
        try moveItem(from: path, to: path.parent.appending(newName))
    }

    private static func isMovingIntoItself(_ source: ContainerPath, _ destination: ContainerPath) -> Bool {
        destination.isDescendant(of: source)
    }
}
