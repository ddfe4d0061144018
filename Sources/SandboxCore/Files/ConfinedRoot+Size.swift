import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// The size of the item at `path`: a file's own size, or a directory tree's total, however
    /// deep it is (an explicit stack, a bounded number of open directories) and whatever its names.
    ///
    /// Hard-linked files are counted once, as `du` does. Symlinks are counted as themselves.
    ///
    /// - Returns: the size, or `nil` if nothing exists at `path`.
    /// - Throws: resolution errors, errors reading a directory of the tree, and
    ///   ``SandboxError/Code/concurrentModification`` when a directory is moved mid-walk.
    public func recursiveSize(at path: ContainerPath) throws(SandboxError) -> DirectorySize? {
        guard let attributes = try attributes(at: path) else { return nil }
        var size = DirectorySize()
        size.allocatedBytes = attributes.allocatedSize
        guard attributes.type == .directory else {
            size.logicalBytes = attributes.size
            size.fileCount = 1
            return size
        }
        let directory = try openDirectory(path)
        var walk = try TreeWalk(root: directory.rawValue, at: path)
        var visitor = SizeVisitor(size: size)
        try walk.run(&visitor)
        return visitor.size
    }
}

/// Adds up what a walk meets; every entry is measured straight from the shared buffer.
private struct SizeVisitor: TreeVisitor {
    var size: DirectorySize
    var seen = Set<FileIdentity>()

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        var info = stat()
        if fstatat(entry.directory, entry.name, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return false }
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: location.display(entry.fileName))
        }
        if info.st_nlink > 1 && info.st_mode & S_IFMT != S_IFDIR {
            guard seen.insert(FileIdentity(info)).inserted else { return false }
        }
        size.allocatedBytes += Int64(info.st_blocks) * 512
        guard info.st_mode & S_IFMT == S_IFDIR else {
            size.logicalBytes += Int64(info.st_size)
            size.fileCount += 1
            return false
        }
        size.directoryCount += 1
        return true
    }
}
