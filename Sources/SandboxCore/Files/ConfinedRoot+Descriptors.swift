import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Opens the regular file at `path` for reading and writing and hands its descriptor to the
    /// caller, for files a layer above the core manages itself (lock files for `flock(2)`, files
    /// created with restricted permissions).
    ///
    /// The path is resolved beneath the root like every other open; a symlink in the last
    /// component is refused rather than followed. The caller owns the descriptor and must close it.
    ///
    /// - Parameters:
    ///   - path: the file, relative to the root; a symlink in its last component is refused.
    ///   - permissions: create the file with these permissions (less the umask) when it is absent;
    ///     `nil` requires it to exist.
    /// - Throws: ``SandboxError/Code/notFound`` (without `permissions`),
    ///   ``SandboxError/Code/notARegularFile``, ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/symlinkLoop`` for a final symlink, and resolution errors.
    public func openFileDescriptor(
        at path: ContainerPath, creatingWith permissions: FilePermissions? = nil
    ) throws(SandboxError) -> FileDescriptor {
        var flags = O_RDWR | O_NONBLOCK | O_NOCTTY
        if permissions != nil { flags |= O_CREAT }
        let file = try open(path, flags: flags, mode: mode_t(permissions?.rawValue ?? 0), followFinalSymlink: false)
        var info = stat()
        _ = try syscall("fstat", path: path.description) { fstat(file.rawValue, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .rule(
                .notARegularFile, "'\(path)' is not a regular file; only regular files can be opened here.",
                path: path.description)
        }
        _ = fcntl(file.rawValue, F_SETFL, O_RDWR)  // back to blocking I/O
        return FileDescriptor(rawValue: file.release())
    }
}
