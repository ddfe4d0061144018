import CSandboxShims
import Glibc
import Synchronization
import SystemPackage

/// A file being written that becomes visible at its path only when committed: the begin/commit
/// form of ``AtomicFile``, for writes that span many calls (``FileWriter``).
///
/// Atomic (``WriteOptions/atomic``): the bytes go to an unnamed `O_TMPFILE` inode in the target's
/// directory (or, where the file system lacks `O_TMPFILE`, to a hidden name), linked into place on
/// commit; a replaced file is swapped by `renameat`, so readers, and a crash at any moment, see the
/// old contents or the new ones. Durable (``WriteOptions/durable``): the file is `fsync`ed before it
/// is linked and the directory after. Without ``WriteOptions/atomic`` the file is truncated and
/// written in place.
///
/// Committed or discarded exactly once; a staged file that goes away uncommitted is discarded.
final class StagedFile: Sendable {
    let path: ContainerPath
    let descriptor: SharedDescriptor
    private let parent: ParentDescriptor
    private let name: String
    private let temporaryName: String?
    private let options: WriteOptions
    private let phase = Mutex(Phase.open)

    private enum Phase { case open, committed, discarded }

    /// The parent directory's `O_PATH` descriptor, kept for the commit.
    private final class ParentDescriptor: Sendable {
        let rawValue: CInt
        init(_ owned: consuming OwnedDescriptor) { rawValue = owned.release() }
        deinit { Glibc.close(rawValue) }
    }

    /// Starts a file at `path`.
    ///
    /// - Throws: ``SandboxError/Code/isADirectory`` when a directory is at `path`,
    ///   ``SandboxError/Code/alreadyExists`` (in place, with ``WriteOptions/withoutOverwriting``),
    ///   ``SandboxError/Code/notFound`` for a missing parent, resolution errors.
    init(root: ConfinedRoot, path: ContainerPath, options: WriteOptions, permissions: mode_t = 0o644) throws(SandboxError) {
        let parentDirectory = try root.openParent(of: path)
        if let existing = try root.attributes(at: path, followingSymlink: false), existing.type == .directory {
            throw .rule(.isADirectory, "'\(path)' is a directory; a file cannot replace it.", path: path.description)
        }
        let rendered = path.description
        var temporaryName: String?
        let file: OwnedDescriptor
        if options.contains(.atomic) {
            let fd = openat(parentDirectory.rawValue, ".", CSB_O_TMPFILE | O_WRONLY | CSB_O_CLOEXEC, permissions)
            if fd >= 0 {
                file = OwnedDescriptor(taking: fd)
            } else {
                guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
                    throw .systemCall("openat(O_TMPFILE)", errno: Errno(rawValue: errno), path: rendered)
                }
                let hidden = AtomicFile.hiddenName(for: parentDirectory.name)
                file = OwnedDescriptor(taking: try syscall("openat", path: rendered) {
                    openat(parentDirectory.rawValue, hidden, O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC, permissions)
                })
                temporaryName = hidden
            }
        } else {
            let exclusive = options.contains(.withoutOverwriting) ? O_EXCL : O_TRUNC
            file = try root.openRegularFile(path, flags: O_WRONLY | O_CREAT | exclusive, mode: permissions)
        }
        self.path = path
        self.name = parentDirectory.name
        self.parent = ParentDescriptor(parentDirectory.descriptor)
        self.temporaryName = temporaryName
        self.options = options
        self.descriptor = SharedDescriptor(file, path: rendered)
    }

    deinit {
        if phase.withLock({ $0 == .open }) { discard() }
    }

    /// Makes the file visible at its path (and durable, if asked), then closes it.
    ///
    /// - Throws: ``SandboxError/Code/alreadyExists`` with ``WriteOptions/withoutOverwriting``,
    ///   ``SandboxError/Code/noSpace`` and ``SandboxError/Code/io`` from `fsync`, and
    ///   ``SandboxError/Code/invalidArgument`` when already committed or discarded. On failure
    ///   nothing is published and the file is discarded.
    func commit() throws(SandboxError) {
        let wasOpen = phase.withLock { phase -> Bool in
            guard phase == .open else { return false }
            phase = .committed
            return true
        }
        guard wasOpen else { throw .closed(path.description) }
        do throws(SandboxError) {
            try descriptor.use { fd throws(SandboxError) in
                if options.contains(.atomic) { try publish(fd) }
            }
            try descriptor.close()
        } catch {
            removeTemporaryName()
            _ = try? descriptor.close()  // `error` propagates; the descriptor is released either way
            throw error
        }
        if options.contains(.durable) {
            try AtomicFile.synchronizeDirectory(parent.rawValue, path: path.parent)
        }
    }

    /// Abandons the file: nothing is published (an in-place file keeps what was written).
    func discard() {
        let wasOpen = phase.withLock { phase -> Bool in
            guard phase == .open else { return false }
            phase = .discarded
            return true
        }
        guard wasOpen else { return }
        removeTemporaryName()
        _ = try? descriptor.close()  // nothing was published, so a close error loses nothing
    }

    private func publish(_ fd: CInt) throws(SandboxError) {
        let rendered = path.description
        if !options.contains(.withoutOverwriting), let mode = existingPermissions() {
            _ = fchmod(fd, mode)  // keep the replaced file's mode, as editors do
        }
        if options.contains(.durable) {
            _ = try syscall("fsync", path: rendered) { fsync(fd) }
        }
        let exclusive = options.contains(.withoutOverwriting)
        if let temporaryName {
            if exclusive {
                if csb_renameat2(parent.rawValue, temporaryName, parent.rawValue, name, CSB_RENAME_NOREPLACE) == 0 { return }
                guard errno == EINVAL else { throw .systemCall("renameat2", errno: Errno(rawValue: errno), path: rendered) }
                _ = try syscall("linkat", path: rendered) { linkat(parent.rawValue, temporaryName, parent.rawValue, name, 0) }
                _ = unlinkat(parent.rawValue, temporaryName, 0)
            } else {
                _ = try syscall("renameat", path: rendered) { renameat(parent.rawValue, temporaryName, parent.rawValue, name) }
            }
            return
        }
        let procPath = "/proc/self/fd/\(fd)"
        if exclusive {
            _ = try syscall("linkat", path: rendered) { linkat(AT_FDCWD, procPath, parent.rawValue, name, CSB_AT_SYMLINK_FOLLOW) }
            return
        }
        // linkat cannot replace a name: link under a hidden name, then rename over the target. A
        // crash between the two leaves the hidden name (a complete file): see
        // ConfinedRoot.removeInterruptedWrites(in:olderThan:).
        let hidden = AtomicFile.hiddenName(for: name)
        _ = try syscall("linkat", path: rendered) { linkat(AT_FDCWD, procPath, parent.rawValue, hidden, CSB_AT_SYMLINK_FOLLOW) }
        if renameat(parent.rawValue, hidden, parent.rawValue, name) != 0 {
            let error = Errno(rawValue: errno)
            _ = unlinkat(parent.rawValue, hidden, 0)
            throw .systemCall("renameat", errno: error, path: rendered)
        }
    }

    private func removeTemporaryName() {
        if let temporaryName { _ = unlinkat(parent.rawValue, temporaryName, 0) }
    }

    private func existingPermissions() -> mode_t? {
        var info = stat()
        guard fstatat(parent.rawValue, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return info.st_mode & 0o7777
    }
}
