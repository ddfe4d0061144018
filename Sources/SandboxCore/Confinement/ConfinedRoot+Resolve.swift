import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Most symlinks expanded while resolving one path (Linux's own limit is 40).
    static let maximumSymlinkExpansions = 40

    /// Opens `path` beneath the root.
    ///
    /// - Parameters:
    ///   - flags: `open(2)` flags; `O_CLOEXEC` is always added, `O_DIRECTORY` when the path ends in `/`.
    ///   - followFinalSymlink: whether a symlink in the last component is followed (always within
    ///     the root) or opened as itself (`O_NOFOLLOW`).
    /// - Throws: ``SandboxError/Code/escapesContainer`` when resolution would leave the root, and
    ///   the `open(2)` errors otherwise.
    package func open(
        _ path: ContainerPath,
        flags: CInt,
        mode: mode_t = FilePermissions.privateFile.rawValue,
        followFinalSymlink: Bool = true
    ) throws(SandboxError) -> OwnedDescriptor {
        var flags = flags | CSB_O_CLOEXEC
        if path.requiresDirectory && !path.isRoot { flags |= CSB_O_DIRECTORY }
        if !followFinalSymlink { flags |= CSB_O_NOFOLLOW }
        if resolution == .openat2 {
            let rendered = path.cString
            for _ in 0..<4 {
                let fd = csb_openat2_beneath(descriptor, rendered, flags, UInt32(mode), refusesSymlinks ? 1 : 0)
                if fd >= 0 { return OwnedDescriptor(taking: fd) }
                switch errno {
                case EINTR, EAGAIN:
                    continue  // a rename or mount raced the lookup: the kernel asks us to retry
                default:
                    throw .systemCall("openat2", errno: Errno(rawValue: errno), path: path.description)
                }
            }
            // Still racing after four tries: the walk below is immune to it.
        }
        return try walk(path, flags: flags, mode: mode, followFinalSymlink: followFinalSymlink)
    }

    /// Resolves the directory that holds `path`'s last component, for operations that act on that
    /// name without following it (`mkdirat`, `unlinkat`, `renameat`, `linkat`, `fstatat`).
    ///
    /// - Throws: ``SandboxError/Code/invalidPath`` when the path is the root or ends in `..`.
    package func openParent(of path: ContainerPath) throws(SandboxError) -> ParentDirectory {
        guard let name = path.lastName else {
            throw .rule(
                .invalidPath, "This operation needs an item inside the container, not the container itself.", path: ".")
        }
        guard !name.isParentReference else {
            throw .rule(
                .invalidPath, "'\(path)' ends in '..' and so names no single item; write the item's own path.",
                path: path.description)
        }
        return ParentDirectory(descriptor: try open(path.parent, flags: CSB_O_PATH | CSB_O_DIRECTORY), name: name)
    }

    /// ``openParent(of:)``, or `nil` when a directory on the way does not exist.
    package func openParentIfPresent(of path: ContainerPath) throws(SandboxError) -> ParentDirectory? {
        do throws(SandboxError) {
            return try openParent(of: path)
        } catch  where error.code == .notFound {
            return nil
        }
    }

    /// The portable resolution: one `openat(O_NOFOLLOW)` per component, a stack of open directories
    /// for `..` (never asking the kernel for `..`, so a concurrently moved directory cannot lead
    /// out), and symlinks expanded here: an absolute target, or `..` above the root, is an escape.
    private func walk(
        _ path: ContainerPath,
        flags: CInt,
        mode: mode_t,
        followFinalSymlink: Bool
    ) throws(SandboxError) -> OwnedDescriptor {
        var stack: [CInt] = []
        defer { for fd in stack { Glibc.close(fd) } }
        var work = Array(path.names.reversed())
        var expansions = 0
        let rendered = path.description

        func expand(_ target: [UInt8]) throws(SandboxError) {
            // As `RESOLVE_NO_SYMLINKS` has it: a symlink that would be followed is ELOOP.
            guard !refusesSymlinks else {
                throw .systemCall("openat", errno: .tooManySymbolicLinkLevels, path: rendered)
            }
            expansions += 1
            guard expansions <= Self.maximumSymlinkExpansions else {
                throw .systemCall("openat", errno: .tooManySymbolicLinkLevels, path: rendered)
            }
            guard target.first != UInt8(ascii: "/") else {
                throw .rule(.escapesContainer, SandboxError.escapeMessage(rendered), path: rendered)
            }
            // A trailing '/' requires a directory, as the kernel has it: `link -> f/` is ENOTDIR.
            let trailing = target.last == UInt8(ascii: "/") ? [Self.currentDirectory] : []
            let parts = target.split(separator: UInt8(ascii: "/")).map { FileName(uncheckedBytes: $0) }
            work.append(contentsOf: (parts + trailing).reversed())
        }

        while let name = work.popLast() {
            if name == Self.currentDirectory { continue }
            if name.isParentReference {
                guard let top = stack.popLast() else {
                    throw .rule(.escapesContainer, SandboxError.escapeMessage(rendered), path: rendered)
                }
                Glibc.close(top)
                continue
            }
            let directory = stack.last ?? descriptor
            if !work.isEmpty {
                let fd = openat(directory, name.cString, CSB_O_PATH | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
                if fd >= 0 {
                    stack.append(fd)
                    continue
                }
                let error = errno
                if error == ELOOP || error == ENOTDIR,
                    let target = try readSymlink(in: directory, named: name, path: rendered)
                {
                    try expand(target)
                    continue
                }
                throw .systemCall("openat", errno: Errno(rawValue: error), path: rendered)
            }
            // The last component.
            let fd = openat(directory, name.cString, flags | CSB_O_NOFOLLOW, mode)
            if fd >= 0 {
                let owned = OwnedDescriptor(taking: fd)
                if followFinalSymlink, flags & CSB_O_PATH != 0, try isSymlink(owned.rawValue, path: rendered) {
                    owned.close()
                    guard let target = try readSymlink(in: directory, named: name, path: rendered) else {
                        throw .systemCall("openat", errno: .resourceTemporarilyUnavailable, path: rendered)
                    }
                    try expand(target)
                    continue
                }
                return owned
            }
            let error = errno
            if followFinalSymlink, error == ELOOP || error == ENOTDIR,
                let target = try readSymlink(in: directory, named: name, path: rendered)
            {
                try expand(target)
                continue
            }
            throw .systemCall("openat", errno: Errno(rawValue: error), path: rendered)
        }
        // The path ended at a directory reached through `.`, `..` or a symlink: reopen it.
        let directory = stack.last ?? descriptor
        return OwnedDescriptor(
            taking: try syscall("openat", path: rendered) {
                openat(directory, ".", flags & ~(O_CREAT | O_EXCL | CSB_O_NOFOLLOW), mode)
            })
    }

    /// Where `path` really is beneath the root, named as a path: every symbolic link on the way
    /// expanded (the last name's too when `followingFinalLink`) and every `..` taken physically,
    /// by the rules ``open(_:flags:mode:followFinalSymlink:)`` resolves with (at most 40 links, an
    /// absolute target or `..` above the root is an escape); names past a missing one are taken
    /// as written. For judging a path where it leads (a container's policy), not for opening it:
    /// the answer describes the tree as it was at the call.
    ///
    /// - Throws: ``SandboxError/Code/escapesContainer`` for a link that leads out or `..` above
    ///   the root; ``SandboxError/Code/symlinkLoop`` past 40 links; file-system errors (such as
    ///   ``SandboxError/Code/notADirectory`` for a name beneath a file).
    package func location(of path: ContainerPath, followingFinalLink: Bool) throws(SandboxError) -> ContainerPath {
        let rendered = path.description
        var resolved = ContainerPath.root
        var work = Array(path.names.reversed())
        var expansions = 0
        var missing = false
        while let name = work.popLast() {
            if name == Self.currentDirectory { continue }
            if name.isParentReference {
                guard !resolved.isRoot else {
                    throw .rule(.escapesContainer, SandboxError.escapeMessage(rendered), path: rendered)
                }
                resolved = resolved.parent
                continue
            }
            let candidate = resolved.appending(name)
            resolved = candidate
            if missing || (work.isEmpty && !followingFinalLink) { continue }
            guard let parent = try openParentIfPresent(of: candidate) else {
                missing = true
                continue
            }
            guard let target = try readSymlink(in: parent.rawValue, named: parent.name, path: rendered) else {
                continue
            }
            resolved = candidate.parent
            expansions += 1
            guard expansions <= Self.maximumSymlinkExpansions else {
                throw .systemCall("readlinkat", errno: .tooManySymbolicLinkLevels, path: rendered)
            }
            guard target.first != UInt8(ascii: "/") else {
                throw .rule(.escapesContainer, SandboxError.escapeMessage(rendered), path: rendered)
            }
            work.append(
                contentsOf: target.split(separator: UInt8(ascii: "/")).map { FileName(uncheckedBytes: $0) }.reversed())
        }
        return resolved
    }

    /// `.`, which a symlink's target may contain.
    private static let currentDirectory = FileName(uncheckedBytes: ".".utf8)

    /// The target of the symlink `name` in `directory`, byte for byte, or `nil` if `name` is not
    /// a symlink.
    func readSymlink(in directory: CInt, named name: FileName, path: String) throws(SandboxError) -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(directory, name.cString, &buffer, buffer.count - 1)
        if count < 0 {
            if errno == EINVAL || errno == ENOENT { return nil }
            throw .systemCall("readlinkat", errno: Errno(rawValue: errno), path: path)
        }
        return buffer[0..<count].map { UInt8(bitPattern: $0) }
    }

    private func isSymlink(_ fd: CInt, path: String) throws(SandboxError) -> Bool {
        var info = stat()
        _ = try syscall("fstat", path: path) { fstat(fd, &info) }
        return info.st_mode & S_IFMT == S_IFLNK
    }
}

/// The directory holding an item, open as `O_PATH`, and the item's name in it.
package struct ParentDirectory: ~Copyable {
    package let descriptor: OwnedDescriptor
    /// The item's name, byte for byte: pass `name.cString` to `*at` calls.
    package let name: FileName
    package var rawValue: CInt { descriptor.rawValue }
}
