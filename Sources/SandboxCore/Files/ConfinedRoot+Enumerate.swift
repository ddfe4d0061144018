import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Visits the items beneath the directory at `path`, each before its contents (pre-order),
    /// with `getdents64` and the entries' `d_type`; `statx` only where the type is unknown or
    /// attributes are asked for. Symlinks are reported, never followed.
    ///
    /// - Parameters:
    ///   - recursive: also visit the contents of subdirectories.
    ///   - prefetchingAttributes: fill in ``DirectoryEntry/attributes`` for every item.
    ///   - body: called once per item; an error it throws ends the walk.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/tooManyOpenFiles`` for very deep trees, resolution errors, and what
    ///   `body` throws.
    public func enumerate(
        at path: ContainerPath,
        recursive: Bool,
        prefetchingAttributes: Bool = false,
        _ body: (DirectoryEntry) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let directory = try openDirectory(path)
        let reader = DirectoryReader()
        try Self.walk(directory.rawValue, path, reader, recursive, prefetchingAttributes, body)
    }

    private static func walk(
        _ fd: CInt,
        _ path: ContainerPath,
        _ reader: borrowing DirectoryReader,
        _ recursive: Bool,
        _ prefetch: Bool,
        _ body: (DirectoryEntry) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        for (name, rawType) in try reader.entries(of: fd, path: path.description) {
            let itemPath = path.appendingTrusted(name)
            var type = ItemType(directoryEntryType: rawType)
            var attributes: FileAttributes?
            if prefetch || type == .unknown {
                do throws(SandboxError) {
                    attributes = try statx(fd, name, flags: CSB_AT_SYMLINK_NOFOLLOW, path: itemPath.description)
                } catch where error.code == .notFound {
                    continue  // removed since the directory was read
                }
                type = attributes?.type ?? type
            }
            try body(DirectoryEntry(name: name, path: itemPath, type: type, attributes: prefetch ? attributes : nil))
            guard recursive, type == .directory else { continue }
            let child = openat(fd, name, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
            if child < 0 {
                // Removed or replaced (say, by a symlink) since it was listed: nothing to descend into.
                if errno == ENOENT || errno == ELOOP || errno == ENOTDIR { continue }
                throw .systemCall("openat", errno: Errno(rawValue: errno), path: itemPath.description)
            }
            let owned = OwnedDescriptor(taking: child)
            try walk(owned.rawValue, itemPath, reader, recursive, prefetch, body)
        }
    }
}
