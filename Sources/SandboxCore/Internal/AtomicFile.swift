import CSandboxShims
import Glibc
import SystemPackage

/// Creates a file whose name appears only once its contents are complete.
///
/// `O_TMPFILE` gives an unnamed inode in the target directory; it is linked in through
/// `/proc/self/fd/N` (no `CAP_DAC_READ_SEARCH` needed, unlike `AT_EMPTY_PATH`). To replace an
/// existing name it is linked under a temporary name and renamed over the old one, so the path is
/// never absent. File systems without `O_TMPFILE` get a hidden, randomly named file instead.
/// If `body` throws, or the process dies, no name ever appears (or the hidden one is unlinked).
enum AtomicFile {
    static func create(
        in parent: CInt,
        named name: String,
        path: ContainerPath,
        options: WriteOptions,
        permissions: mode_t = 0o644,
        _ body: (CInt) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        var temporaryName: String?
        var fd = openat(parent, ".", CSB_O_TMPFILE | O_WRONLY | CSB_O_CLOEXEC, permissions)
        if fd < 0 {
            guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
                throw .systemCall("openat(O_TMPFILE)", errno: Errno(rawValue: errno), path: path.description)
            }
            let hidden = hiddenName(for: name)
            fd = try syscall("openat", path: path.description) {
                openat(parent, hidden, O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC, permissions)
            }
            temporaryName = hidden
        }
        let file = OwnedDescriptor(taking: fd)
        do throws(SandboxError) {
            try body(file.rawValue)
            if let existing = existingPermissions(parent, name), !options.contains(.withoutOverwriting) {
                _ = fchmod(file.rawValue, existing)  // keep the replaced file's mode, as editors do
            }
            if options.contains(.durable) {
                _ = try syscall("fsync", path: path.description) { fsync(file.rawValue) }
            }
            try publish(file.rawValue, temporaryName: temporaryName, in: parent, as: name, path: path, options: options)
        } catch {
            if let temporaryName { _ = unlinkat(parent, temporaryName, 0) }  // cleanup; `error` propagates
            throw error
        }
        if options.contains(.durable) {
            try synchronizeDirectory(parent, path: path.parent)
        }
    }

    private static func publish(
        _ fd: CInt,
        temporaryName: String?,
        in parent: CInt,
        as name: String,
        path: ContainerPath,
        options: WriteOptions
    ) throws(SandboxError) {
        let exclusive = options.contains(.withoutOverwriting)
        if let temporaryName {
            if exclusive {
                if csb_renameat2(parent, temporaryName, parent, name, CSB_RENAME_NOREPLACE) == 0 { return }
                guard errno == EINVAL else { throw .systemCall("renameat2", errno: Errno(rawValue: errno), path: path.description) }
                _ = try syscall("linkat", path: path.description) { linkat(parent, temporaryName, parent, name, 0) }
                _ = unlinkat(parent, temporaryName, 0)
            } else {
                _ = try syscall("renameat", path: path.description) { renameat(parent, temporaryName, parent, name) }
            }
            return
        }
        let procPath = "/proc/self/fd/\(fd)"
        if exclusive {
            _ = try syscall("linkat", path: path.description) { linkat(AT_FDCWD, procPath, parent, name, CSB_AT_SYMLINK_FOLLOW) }
            return
        }
        // linkat cannot replace a name: link under a hidden name, then rename over the target.
        let hidden = hiddenName(for: name)
        _ = try syscall("linkat", path: path.description) { linkat(AT_FDCWD, procPath, parent, hidden, CSB_AT_SYMLINK_FOLLOW) }
        if renameat(parent, hidden, parent, name) != 0 {
            let error = Errno(rawValue: errno)
            _ = unlinkat(parent, hidden, 0)
            throw .systemCall("renameat", errno: error, path: path.description)
        }
    }

    /// `fsync` of a directory, so that a name created or renamed in it survives a crash.
    static func synchronizeDirectory(_ directory: CInt, path: ContainerPath) throws(SandboxError) {
        let fd = try syscall("openat", path: path.description) { openat(directory, ".", O_RDONLY | CSB_O_DIRECTORY | CSB_O_CLOEXEC) }
        let owned = OwnedDescriptor(taking: fd)
        _ = try syscall("fsync", path: path.description) { fsync(owned.rawValue) }
    }

    static func hiddenName(for name: String) -> String {
        ".\(name.prefix(200)).sandbox-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }

    private static func existingPermissions(_ parent: CInt, _ name: String) -> mode_t? {
        var info = stat()
        guard fstatat(parent, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return info.st_mode & 0o7777
    }
}
