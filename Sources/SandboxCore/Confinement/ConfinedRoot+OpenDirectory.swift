import CSandboxShims
import Glibc

extension ConfinedRoot {
    /// Opens the directory at `path` beneath the root, for modules of this package that work on
    /// descriptors themselves (the folder monitor, bundle scanning, lifecycle).
    ///
    /// - Parameters:
    ///   - flags: `O_RDONLY` (the default) to read its entries, `O_PATH` for a descriptor that only
    ///     anchors `*at` calls, `inotify` watches through `/proc/self/fd` or `fstat`. `O_DIRECTORY`
    ///     and `O_CLOEXEC` are always added.
    ///   - followFinalSymlink: whether a symlink in the last component is followed (always within
    ///     the root) or refused (``SandboxError/Code/symlinkLoop``, as `O_NOFOLLOW` reports it).
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/escapesContainer`` and the other resolution errors of ``open(_:flags:mode:followFinalSymlink:)``.
    package func openDirectory(
        _ path: ContainerPath,
        flags: CInt = O_RDONLY,
        followFinalSymlink: Bool = true
    ) throws(SandboxError) -> OwnedDescriptor {
        try open(path, flags: flags | CSB_O_DIRECTORY, followFinalSymlink: followFinalSymlink)
    }
}
