import CSandboxShims
import Glibc
import SystemPackage

/// A directory that every operation stays beneath, enforced by the kernel.
///
/// A `ConfinedRoot` holds an `O_PATH` descriptor to its directory and resolves every
/// ``ContainerPath`` beneath it with `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`, or, where
/// the kernel lacks `openat2`, with a component-by-component `openat(O_NOFOLLOW)` walk that expands
/// symlinks itself and refuses any that lead out. Mutations (create, remove, rename, link) resolve
/// the parent directory that way and then act on the last name with `*at` calls that do not follow it.
///
/// Because the root is a descriptor, moving the directory on the host does not redirect operations:
/// they follow the directory. The descriptor is closed when the last reference goes away, so no
/// operation can run on a closed root.
///
/// What confinement does not cover:
/// - hard links made from outside the container to files outside it (the kernel cannot tell such a
///   link from a file of the container's own);
/// - bind mounts and other file systems mounted beneath the root (they are crossed, as `openat2`
///   without `RESOLVE_NO_XDEV` does);
/// - files that another process changes while they are read.
public final class ConfinedRoot: Sendable {
    /// How paths are resolved.
    public enum Resolution: String, Sendable, CaseIterable {
        /// `openat2` where the kernel has it, else the manual walk. The environment variable
        /// `SANDBOX_RESOLVE=walk` forces the walk (for tests).
        case automatic
        /// `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` only; fails if the kernel lacks it.
        case openat2
        /// A component-by-component `openat(O_NOFOLLOW)` walk with symlinks expanded in user space.
        case manualWalk
    }

    /// The `O_PATH | O_DIRECTORY` descriptor everything is resolved beneath.
    let descriptor: CInt
    /// The resolution in force (never ``Resolution/automatic`` after initialization).
    public let resolution: Resolution
    /// The host path the root was opened at, for messages only: nothing is resolved against it.
    public let hostPath: String
    /// Where atomic writes put their temporary names (``openSubroot(at:stagingWritesIn:)``).
    let staging: ContainerPath?
    /// Whether every symlink is refused, inside the root or not (``openSubroot(at:refusingSymlinks:)``).
    public let refusesSymlinks: Bool

    /// Opens the directory at `hostPath` as a root.
    ///
    /// - Throws: ``SandboxError`` with ``SandboxError/Code/notFound``,
    ///   ``SandboxError/Code/notADirectory`` or ``SandboxError/Code/permissionDenied``; or
    ///   ``SandboxError/Code/unsupported`` when ``Resolution/openat2`` is asked of a kernel without it.
    public init(openingDirectoryAt hostPath: String, resolution: Resolution = .automatic) throws(SandboxError) {
        let fd = try syscall("open", path: hostPath) {
            Glibc.open(hostPath, CSB_O_PATH | CSB_O_DIRECTORY | CSB_O_CLOEXEC)
        }
        self.descriptor = fd
        self.hostPath = hostPath
        self.staging = nil
        self.refusesSymlinks = false
        switch resolution {
        case .automatic:
            let forced = getenv("SANDBOX_RESOLVE").map { String(cString: $0) } == "walk"
            self.resolution = (forced || !Self.kernelHasOpenat2) ? .manualWalk : .openat2
        case .openat2:
            guard Self.kernelHasOpenat2 else {
                Glibc.close(fd)
                throw .rule(
                    .unsupported, "This kernel has no openat2(2) (Linux 5.6 or later); use the manual walk.",
                    path: hostPath)
            }
            self.resolution = .openat2
        case .manualWalk:
            self.resolution = .manualWalk
        }
    }

    init(
        descriptor: CInt, hostPath: String, resolution: Resolution, staging: ContainerPath? = nil,
        refusesSymlinks: Bool = false
    ) {
        self.descriptor = descriptor
        self.hostPath = hostPath
        self.resolution = resolution
        self.staging = staging
        self.refusesSymlinks = refusesSymlinks
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Whether `openat2` works here: probed once per process. `ENOSYS` (old kernels) and `EPERM`
    /// (seccomp filters that forbid it) both mean "no".
    static let kernelHasOpenat2: Bool = {
        let fd = csb_openat2_beneath(CSB_AT_FDCWD, ".", CSB_O_PATH | CSB_O_CLOEXEC, 0, 1)
        if fd >= 0 {
            Glibc.close(fd)
            return true
        }
        return errno != ENOSYS && errno != EPERM
    }()

    /// The host path of an item, for display (a path shown to a person). Never use it to open the item:
    /// that would bypass confinement.
    public func displayPath(of path: ContainerPath) -> String {
        path.isRoot ? hostPath : hostPath + "/" + path.description
    }
}

extension ConfinedRoot {
    /// Opens the directory at `path` beneath this root as a root of its own, confined to it.
    ///
    /// - Parameters:
    ///   - path: the directory, relative to this root.
    ///   - refusingSymlinks: also refuse every symlink met while resolving a path beneath the new
    ///     root, even one that stays inside it (`RESOLVE_NO_SYMLINKS`), with
    ///     ``SandboxError/Code/symlinkLoop``; a symlink is still listed, removed and renamed as
    ///     itself. For roots that strangers reach, where a symlink is a name that means another
    ///     place (the sharing server). A root that refuses symlinks gives subroots that do too.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory`` and the
    ///   resolution errors of this root.
    public func openSubroot(at path: ContainerPath, refusingSymlinks: Bool = false) throws(SandboxError) -> ConfinedRoot
    {
        let fd = try open(path, flags: CSB_O_PATH | CSB_O_DIRECTORY)
        return ConfinedRoot(
            descriptor: fd.release(), hostPath: displayPath(of: path), resolution: resolution,
            refusesSymlinks: refusingSymlinks || refusesSymlinks)
    }
}
