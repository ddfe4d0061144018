import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Removes the item at `path`. A symlink is removed itself, never its target.
    ///
    /// A recursive removal walks the tree with an explicit stack and a bounded
    /// number of open directories (split between two threads when two CPUs are online, each
    /// taking whole subdirectories in turn), so any depth is removed — opening directories with
    /// `O_NOFOLLOW` and unlinking names (byte for byte, whatever their encoding) relative to them,
    /// so a directory swapped for a symlink while it runs is unlinked as a link, and nothing
    /// outside the container is touched.
    ///
    /// - Parameters:
    ///   - path: the item to remove, relative to the root; not the root itself.
    ///   - recursively: remove a directory with everything in it. Read-only directories the caller
    ///     owns (a sealed app bundle's) are made writable on the way, so they can be emptied.
    /// - Returns: how many items were removed; 0 when nothing existed at `path`.
    /// - Throws: ``SandboxError/Code/directoryNotEmpty`` for a non-empty directory without
    ///   `recursively`, ``SandboxError/Code/invalidPath`` for the root itself,
    ///   ``SandboxError/Code/concurrentModification`` when a directory is moved mid-walk, and
    ///   resolution errors such as ``SandboxError/Code/escapesContainer``.
    @discardableResult
    public func removeItem(at path: ContainerPath, recursively: Bool = false) throws(SandboxError) -> Int {
        try removeItem(at: path, recursively: recursively, threads: ParallelRemoval.defaultThreads)
    }

    /// Removes the item at `path` as ``removeItem(at:recursively:)`` does, a recursive removal
    /// unlinking on up to `threads` threads (the calling one among them; 1 for one sequential
    /// walk): where unlinks wait on the disk rather than the CPU, more threads than CPUs overlap
    /// the waits (a restore removes the container it replaced on 8).
    ///
    /// - Throws: as ``removeItem(at:recursively:)``.
    @discardableResult
    package func removeItem(at path: ContainerPath, recursively: Bool, threads: Int) throws(SandboxError) -> Int {
        guard let parent = try openParentIfPresent(of: path) else { return 0 }
        let name = parent.name
        var info = stat()
        if fstatat(parent.rawValue, name.cString, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return 0 }
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: path.description)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            _ = try syscall("unlinkat", path: path.description) { unlinkat(parent.rawValue, name.cString, 0) }
            return 1
        }
        guard recursively else {
            do throws(SandboxError) {
                _ = try syscall("unlinkat", path: path.description) {
                    unlinkat(parent.rawValue, name.cString, CSB_AT_REMOVEDIR)
                }
            } catch  where error.code == .directoryNotEmpty {
                throw .rule(
                    .directoryNotEmpty,
                    "The directory '\(path)' is not empty. Remove it recursively or empty it first.",
                    path: path.description)
            }
            return 1
        }
        let fd = openat(parent.rawValue, name.cString, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard fd >= 0 else {
            var visitor = RemovalVisitor()
            let location = WalkLocation(base: path.parent)
            try visitor.descentFailed(named: name, in: parent.rawValue, errno: errno, at: location)
            return visitor.removed
        }
        let directory = OwnedDescriptor(taking: fd)
        try RemovalVisitor.makeWritable(directory.rawValue, path: path.description)
        let removed = try ParallelRemoval.removeContents(of: directory.rawValue, at: path, threads: threads)
        _ = try syscall("unlinkat", path: path.description) {
            unlinkat(parent.rawValue, name.cString, CSB_AT_REMOVEDIR)
        }
        return removed + 1
    }

    /// Removes everything inside the directory at `path`, keeping the directory; any depth, any
    /// names (see ``removeItem(at:recursively:)``).
    ///
    /// - Returns: how many items were removed.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/concurrentModification``, and resolution errors.
    @discardableResult
    public func removeContents(of path: ContainerPath) throws(SandboxError) -> Int {
        let directory = try openDirectory(path)
        return try ParallelRemoval.removeContents(
            of: directory.rawValue, at: path, threads: ParallelRemoval.defaultThreads)
    }
}

/// Unlinks what a walk meets: files at once from the shared buffer, directories once emptied.
struct RemovalVisitor: TreeVisitor {
    /// Items removed so far.
    private(set) var removed = 0

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        guard entry.type != CSB_DT_DIR else { return true }
        if unlinkat(entry.directory, entry.name, 0) == 0 {
            removed += 1
            return false
        }
        switch errno {
        case EISDIR: return true  // `d_type` was unknown, or it became a directory since
        case ENOENT: return false
        default: throw .systemCall("unlinkat", errno: Errno(rawValue: errno), path: location.display(entry.fileName))
        }
    }

    mutating func descentFailed(
        named name: FileName, in parent: CInt, errno error: CInt, at location: borrowing WalkLocation
    ) throws(SandboxError) {
        switch error {
        case ELOOP, ENOTDIR:  // replaced by a symlink or a file since it was seen: unlink that
            if unlinkat(parent, name.cString, 0) == 0 {
                removed += 1
            } else if errno != ENOENT {
                throw .systemCall("unlinkat", errno: Errno(rawValue: errno), path: location.display(name))
            }
        case ENOENT:
            return
        default:
            throw .systemCall("openat", errno: Errno(rawValue: error), path: location.display(name))
        }
    }

    func enter(
        _ directory: CInt, named name: FileName, mirrorParent: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) -> CInt? {
        try Self.makeWritable(directory, path: location.display())
        return nil
    }

    mutating func leave(
        _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) {
        _ = try syscall("unlinkat", path: location.display()) { unlinkat(parent, name.cString, CSB_AT_REMOVEDIR) }
        removed += 1
    }

    /// Gives the owner write and search permission on a read-only directory (a sealed app bundle
    /// is 0555), so that its entries can be unlinked by a user other than root, as removing a tree
    /// one owns is meant to succeed. Directories already writable are left untouched.
    static func makeWritable(_ directory: CInt, path: @autoclosure () -> String) throws(SandboxError) {
        var info = stat()
        _ = try syscall("fstat", path: path()) { fstat(directory, &info) }
        let ownerAll = mode_t(S_IRWXU)
        guard info.st_mode & ownerAll != ownerAll, info.st_uid == geteuid() else { return }
        _ = try syscall("fchmod", path: path()) { fchmod(directory, (info.st_mode & 0o7777) | ownerAll) }
    }
}
