import CSandboxShims
import Glibc

/// Opens the directories and files of one container by descriptor, for inotify and probes.
///
/// inotify takes a path, not a descriptor. Watches are therefore added through `/proc/self/fd/N`
/// of a descriptor opened here: the kernel follows that magic link to the very directory the
/// descriptor holds, so no host path is ever resolved for a watch, and a symlink or a directory
/// swapped in mid-way cannot redirect it outside the container.
///
/// The container's directory is opened once, by its host path (``ConfinedRoot/hostPath``), and
/// checked to be the same inode as the ``ConfinedRoot``'s. Below it every name is opened with
/// `openat(O_NOFOLLOW)`, one component at a time: symlinks are refused, never followed, and `..`
/// is not accepted, so nothing outside the container can be reached.
final class DirectoryOpener: Sendable {
    /// `O_PATH | O_DIRECTORY` descriptor of the container's directory.
    private let descriptor: CInt

    /// - Throws: ``SandboxError/Code/notFound`` when the container's directory moved or was replaced
    ///   since `root` was opened, and the errors of `open(2)`.
    init(root: ConfinedRoot) throws(SandboxError) {
        let fd = Glibc.open(root.hostPath, CSB_O_PATH | CSB_O_DIRECTORY | CSB_O_CLOEXEC)
        guard fd >= 0 else { throw .watch("open", errno: errno, path: root.hostPath) }
        var info = csb_statx_t()
        let expected = try root.attributes(at: .root)
        guard csb_statx(fd, "", CSB_AT_EMPTY_PATH, CSB_STATX_BASIC_STATS, &info) == 0, let expected,
            info.ino == expected.inode, UInt64(info.dev_major) << 32 | UInt64(info.dev_minor) == expected.device
        else {
            Glibc.close(fd)
            throw SandboxError(.notFound, "The container at '\(root.hostPath)' was moved or replaced since it was opened; open it again to watch it.", path: root.hostPath)
        }
        descriptor = fd
    }

    deinit { Glibc.close(descriptor) }

    /// Opens the directory at `components` (relative to the container's home).
    ///
    /// - Parameter flags: `O_PATH` for probes, `O_RDONLY` to list it too.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory`` (also for a
    ///   symlink), ``SandboxError/Code/invalidPath`` for `..`.
    func openDirectory(_ components: [String], flags: CInt = O_RDONLY) throws(SandboxError) -> Descriptor {
        let first = retryingInterrupts { dup(descriptor) }
        guard first >= 0 else { throw .watch("dup", errno: errno, path: Self.display(components)) }
        var current = Descriptor(taking: first)
        for (index, name) in components.enumerated() {
            guard name != ".." else {
                throw SandboxError(.invalidPath, "'\(Self.display(components))' contains '..'; give the folder's own path to watch it.", path: Self.display(components))
            }
            let last = index == components.count - 1
            let mode = (last ? flags : CSB_O_PATH) | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC
            let next = retryingInterrupts { openat(current.rawValue, name, mode) }
            guard next >= 0 else { throw .watch("openat", errno: errno, path: Self.display(components)) }
            current = Descriptor(taking: next)
        }
        if components.isEmpty && flags & CSB_O_PATH == 0 {
            let reopened = retryingInterrupts { openat(descriptor, ".", flags | CSB_O_DIRECTORY | CSB_O_CLOEXEC) }
            guard reopened >= 0 else { throw .watch("openat", errno: errno, path: ".") }
            current = Descriptor(taking: reopened)
        }
        return current
    }

    static func display(_ components: [String]) -> String {
        components.isEmpty ? "." : components.joined(separator: "/")
    }
}
