import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// The size of the item at `path`: a file's own size, or a directory tree's total.
    ///
    /// Hard-linked files are counted once, as `du` does. Symlinks are counted as themselves.
    ///
    /// - Returns: the size, or `nil` if nothing exists at `path`.
    /// - Throws: resolution errors, and errors reading a directory of the tree.
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
        let reader = DirectoryReader()
        var seen = Set<HardLinkIdentity>()
        try Self.accumulate(directory.rawValue, path, reader, &seen, &size)
        return size
    }

    private struct HardLinkIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private static func accumulate(
        _ fd: CInt,
        _ path: ContainerPath,
        _ reader: borrowing DirectoryReader,
        _ seen: inout Set<HardLinkIdentity>,
        _ size: inout DirectorySize
    ) throws(SandboxError) {
        // Files are measured straight from the shared buffer; only subdirectories get a String,
        // and are descended into once this directory has been read.
        var subdirectories: [String] = []
        try reader.forEachEntry(of: fd, path: path.description) { name, _ throws(SandboxError) in
            var info = stat()
            if fstatat(fd, name, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
                if errno == ENOENT { return }
                throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: path.appendingTrusted(String(cString: name)).description)
            }
            if info.st_nlink > 1 && info.st_mode & S_IFMT != S_IFDIR {
                guard seen.insert(HardLinkIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else { return }
            }
            size.allocatedBytes += Int64(info.st_blocks) * 512
            guard info.st_mode & S_IFMT == S_IFDIR else {
                size.logicalBytes += Int64(info.st_size)
                size.fileCount += 1
                return
            }
            size.directoryCount += 1
            subdirectories.append(String(cString: name))
        }
        for name in subdirectories {
            let child = openat(fd, name, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
            if child < 0 {
                if errno == ENOENT || errno == ELOOP || errno == ENOTDIR { continue }
                throw .systemCall("openat", errno: Errno(rawValue: errno), path: path.appendingTrusted(name).description)
            }
            let owned = OwnedDescriptor(taking: child)
            try accumulate(owned.rawValue, path.appendingTrusted(name), reader, &seen, &size)
        }
    }
}
