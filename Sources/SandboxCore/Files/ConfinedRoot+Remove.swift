import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Removes the item at `path`. A symlink is removed itself, never its target.
    ///
    /// A recursive removal descends through descriptors opened with `O_NOFOLLOW` and unlinks
    /// names relative to them, so a directory swapped for a symlink while it runs is unlinked as a
    /// link, and nothing outside the container is touched.
    ///
    /// - Parameter recursively: remove a directory with everything in it. Read-only directories
    ///   the caller owns (a sealed app bundle's) are made writable on the way, so they can be emptied.
    /// - Returns: how many items were removed; 0 when nothing existed at `path`.
    /// - Throws: ``SandboxError/Code/directoryNotEmpty`` for a non-empty directory without
    ///   `recursively`, ``SandboxError/Code/invalidPath`` for the root itself, and resolution
    ///   errors such as ``SandboxError/Code/escapesContainer``.
    @discardableResult
    public func removeItem(at path: ContainerPath, recursively: Bool = false) throws(SandboxError) -> Int {
        guard let parent = try openParentIfPresent(of: path) else { return 0 }
        let name = parent.name
        var info = stat()
        if fstatat(parent.rawValue, name, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return 0 }
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: path.description)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            _ = try syscall("unlinkat", path: path.description) { unlinkat(parent.rawValue, name, 0) }
            return 1
        }
        guard recursively else {
            do throws(SandboxError) {
                _ = try syscall("unlinkat", path: path.description) { unlinkat(parent.rawValue, name, CSB_AT_REMOVEDIR) }
            } catch where error.code == .directoryNotEmpty {
                throw .rule(.directoryNotEmpty, "The directory '\(path)' is not empty. Remove it recursively (`sandbox rm --recursive`) or empty it first.", path: path.description)
            }
            return 1
        }
        let reader = DirectoryReader()
        return try Self.removeTree(in: parent.rawValue, named: name, path: path, reader)
    }

    /// Removes everything inside the directory at `path`, keeping the directory.
    ///
    /// - Returns: how many items were removed.
    @discardableResult
    public func removeContents(of path: ContainerPath) throws(SandboxError) -> Int {
        let directory = try openDirectory(path)
        let reader = DirectoryReader()
        var removed = 0
        for (name, _) in try reader.entries(of: directory.rawValue, path: path.description) {
            removed += try Self.removeEntry(in: directory.rawValue, named: name, path: path.appendingTrusted(name), reader)
        }
        return removed
    }

    /// Removes `name` in `directory`: unlinks it, or removes it as a tree if it is a directory.
    static func removeEntry(
        in directory: CInt,
        named name: String,
        path: ContainerPath,
        _ reader: borrowing DirectoryReader
    ) throws(SandboxError) -> Int {
        if unlinkat(directory, name, 0) == 0 { return 1 }
        switch errno {
        case EISDIR: return try removeTree(in: directory, named: name, path: path, reader)
        case ENOENT: return 0
        default: throw .systemCall("unlinkat", errno: Errno(rawValue: errno), path: path.description)
        }
    }

    static func removeTree(
        in parent: CInt,
        named name: String,
        path: ContainerPath,
        _ reader: borrowing DirectoryReader
    ) throws(SandboxError) -> Int {
        let fd = openat(parent, name, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        if fd < 0 {
            switch errno {
            case ELOOP, ENOTDIR:  // replaced by a symlink or a file since it was seen: unlink that
                return try removeEntry(in: parent, named: name, path: path, reader)
            case ENOENT:
                return 0
            default:
                throw .systemCall("openat", errno: Errno(rawValue: errno), path: path.description)
            }
        }
        let directory = OwnedDescriptor(taking: fd)
        try makeWritable(directory.rawValue, path: path)
        var removed = 0
        // Non-directories are unlinked straight from the shared buffer; directories (and entries
        // that turn out to be directories) are removed once this one has been read.
        var subdirectories: [String] = []
        try reader.forEachEntry(of: directory.rawValue, path: path.description) { child, type throws(SandboxError) in
            if type != CSB_DT_DIR {
                if unlinkat(directory.rawValue, child, 0) == 0 {
                    removed += 1
                    return
                }
                guard errno == EISDIR || errno == ENOENT else {
                    throw .systemCall("unlinkat", errno: Errno(rawValue: errno), path: path.appendingTrusted(String(cString: child)).description)
                }
                if errno == ENOENT { return }
            }
            subdirectories.append(String(cString: child))
        }
        for child in subdirectories {
            removed += try removeTree(in: directory.rawValue, named: child, path: path.appendingTrusted(child), reader)
        }
        _ = try syscall("unlinkat", path: path.description) { unlinkat(parent, name, CSB_AT_REMOVEDIR) }
        return removed + 1
    }

    /// Gives the owner write and search permission on a read-only directory (a sealed app bundle
    /// is 0555), so that its entries can be unlinked by a user other than root, as removing a tree
    /// one owns is meant to succeed. Directories already writable are left untouched.
    private static func makeWritable(_ directory: CInt, path: ContainerPath) throws(SandboxError) {
        var info = stat()
        _ = try syscall("fstat", path: path.description) { fstat(directory, &info) }
        let ownerAll = mode_t(S_IRWXU)
        guard info.st_mode & ownerAll != ownerAll, info.st_uid == geteuid() else { return }
        _ = try syscall("fchmod", path: path.description) { fchmod(directory, (info.st_mode & 0o7777) | ownerAll) }
    }
}
