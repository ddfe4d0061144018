import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Sets the permission bits of the item at `path`. A symbolic link there is never followed.
    ///
    /// The item is opened `O_PATH | O_NOFOLLOW` beneath the root and the bits are set on exactly
    /// that inode, so a link planted at `path` cannot redirect the change to its target (another
    /// file beneath the root, such as a key elsewhere in a device home). Directories on the way
    /// are resolved within the root as always; confine the change further by opening a subroot.
    ///
    /// - Throws: for a symbolic link, what resolving it would meet
    ///   (``SandboxError/Code/escapesContainer`` for one that leads out,
    ///   ``SandboxError/Code/symlinkLoop`` for a loop), else ``SandboxError/Code/unsupported``
    ///   (Linux links have no permission bits of their own: set them at the target's own path);
    ///   the other resolution errors; ``SandboxError/Code/notFound``;
    ///   ``SandboxError/Code/permissionDenied`` when not the owner.
    public func setPermissions(_ permissions: FilePermissions, at path: ContainerPath) throws(SandboxError) {
        let item = try openUnfollowed(path)
        var info = stat()
        _ = try syscall("fstat", path: path.description) { fstat(item.rawValue, &info) }
        guard info.st_mode & S_IFMT != S_IFLNK else { throw symlinkRefusal(at: path) }
        // fchmod(2) refuses O_PATH descriptors; the /proc link names exactly this inode, which is
        // not a symbolic link, so nothing more is followed.
        _ = try syscall("chmod", path: path.description) {
            chmod("/proc/self/fd/\(item.rawValue)", permissions.rawValue)
        }
    }

    /// The item at `path` itself, `O_PATH | O_NOFOLLOW`.
    private func openUnfollowed(_ path: ContainerPath) throws(SandboxError) -> OwnedDescriptor {
        do throws(SandboxError) {
            return try open(path, flags: CSB_O_PATH, followFinalSymlink: false)
        } catch  where error.code == .notADirectory {
            // `name/` where `name` is a link is judged as a link; anything else is not a directory.
            guard isSymlink(path) else { throw error }
            throw symlinkRefusal(at: path)
        }
    }

    /// The error for a permission change asked of a symbolic link: what resolving the link would
    /// meet (an escape, a loop, not a directory), else the link itself named.
    private func symlinkRefusal(at path: ContainerPath) -> SandboxError {
        do throws(SandboxError) {
            _ = try open(path, flags: CSB_O_PATH)
        } catch  where error.code != .notFound {
            return error
        } catch {
            // Dangling: still a link, refused as one below.
        }
        return .rule(
            .unsupported,
            "'\(path)' is a symbolic link; permissions are never set through a link (a link has none of its own). Set them at the target's own path.",
            path: path.description)
    }

    /// Whether the last name of `path` is a symbolic link (`false` when it cannot be told).
    private func isSymlink(_ path: ContainerPath) -> Bool {
        do throws(SandboxError) {
            return try attributes(at: path, followingSymlink: false)?.type == .symlink
        } catch {
            return false  // not known to be a link: the caller reports the error it has
        }
    }
}
