import CSandboxShims
import Glibc
import SystemPackage

/// What a file keeps when an atomic write replaces it: its owner and group, its mode, and its
/// `user.` extended attributes (which hold "excluded from backup"), given to the new file before it
/// takes the name, as editors do when they save.
///
/// - The owner: root gives the new file the old owner and group; another user can keep only the
///   group, and only a group it belongs to (`chown(2)` refuses the rest, and the new file then
///   has the writer's own).
/// - A symlink at the name is replaced, never followed: its target gives nothing and is untouched.
/// - Attributes the new file already has (set by the writer) win over the old ones.
///
/// Unlike iOS, where a safe save can reset `isExcludedFromBackup`, the flag survives: a cache
/// rewritten atomically does not silently join the backup.
enum ReplacedFile {
    /// Gives `fd` (the new file, not yet published) the metadata of the regular file named `name`
    /// in `parent`, if there is one.
    ///
    /// - Throws: ``SandboxError`` from `fstatat`, `fchown`, `fchmod` and the extended-attribute
    ///   calls, other than "not permitted" for the owner and "unsupported" for the attributes.
    static func carryMetadata(
        from parent: CInt, named name: FileName, to fd: CInt, path: ContainerPath
    ) throws(SandboxError) {
        var old = stat()
        guard fstatat(parent, name.cString, &old, CSB_AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return }  // nothing is replaced
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: path.description)
        }
        guard old.st_mode & S_IFMT == S_IFREG else { return }
        var new = stat()
        _ = try syscall("fstat", path: path.description) { fstat(fd, &new) }
        try carryOwner(of: old, to: fd, replacing: new, path: path)
        // After the owner: chown(2) clears the set-user-ID and set-group-ID bits.
        _ = try syscall("fchmod", path: path.description) { fchmod(fd, old.st_mode & 0o7777) }
        try carryAttributes(from: parent, named: name, identity: old, to: fd, path: path)
    }

    private static func carryOwner(
        of old: stat, to fd: CInt, replacing new: stat, path: ContainerPath
    ) throws(SandboxError) {
        guard old.st_uid != new.st_uid || old.st_gid != new.st_gid else { return }
        let unchanged = uid_t.max  // -1: leave as is
        let owner = geteuid() == 0 ? old.st_uid : unchanged
        guard owner != unchanged || old.st_gid != new.st_gid else { return }
        if fchown(fd, owner, old.st_gid) != 0 {
            // EPERM: not root and not in the old group. EINVAL: an owner unmapped in this user
            // namespace. The new file keeps the writer's owner; anything else is a real failure.
            guard errno == EPERM || errno == EINVAL else {
                throw .systemCall("fchown", errno: Errno(rawValue: errno), path: path.description)
            }
        }
    }

    private static func carryAttributes(
        from parent: CInt, named name: FileName, identity old: stat, to fd: CInt, path: ContainerPath
    ) throws(SandboxError) {
        let rendered = path.description
        // f*xattr refuse O_PATH descriptors: open for reading, without blocking on a FIFO swapped in
        // meanwhile, and check it is still the file examined.
        let opened = openat(parent, name.cString, O_RDONLY | O_NONBLOCK | O_NOCTTY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard opened >= 0 else {
            // Unreadable (EACCES), gone (ENOENT) or swapped for a link (ELOOP) or a device (ENXIO):
            // there are no attributes to carry. Running out of descriptors or memory is an error.
            guard [EACCES, EPERM, ENOENT, ELOOP, ENXIO].contains(errno) else {
                throw .systemCall("openat", errno: Errno(rawValue: errno), path: rendered)
            }
            return
        }
        let source = OwnedDescriptor(taking: opened)
        var info = stat()
        _ = try syscall("fstat", path: rendered) { fstat(source.rawValue, &info) }
        guard info.st_dev == old.st_dev, info.st_ino == old.st_ino else { return }
        do throws(SandboxError) {
            let carried = try ExtendedAttributes.names(fd: source.rawValue, path: rendered).filter {
                $0.hasPrefix("user.")
            }
            guard !carried.isEmpty else { return }
            let present = Set(try ExtendedAttributes.names(fd: fd, path: rendered))
            for attribute in carried where !present.contains(attribute) {
                guard let value = try ExtendedAttributes.value(of: attribute, fd: source.rawValue, path: rendered)
                else { continue }
                try ExtendedAttributes.setValue(value, of: attribute, fd: fd, path: rendered)
            }
        } catch  where error.code == .unsupported {
            return  // one of the two file systems has no user attributes: nothing can be carried
        }
    }
}
