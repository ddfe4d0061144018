import CSandboxShims
import Glibc
import Synchronization
import SystemPackage

/// A file being written that is published at its path only when committed: the begin/commit form
/// of ``AtomicFile``, for writes that span many calls (``FileWriter``).
///
/// Publishing is ``PendingFile``'s one step: atomic (``WriteOptions/atomic``), the file appears
/// complete, with the replaced file's owner, mode and attributes, or not at all, whenever the
/// process dies; durable (``WriteOptions/durable``), it is `fsync`ed with its directory, atomic or
/// in place.
///
/// Committed or discarded exactly once; a staged file that goes away uncommitted is discarded.
final class StagedFile: Sendable {
    let path: ContainerPath
    let descriptor: SharedDescriptor
    private let file: PendingFile
    private let phase = Mutex(Phase.open)

    private enum Phase { case open, committed, discarded }

    /// Starts a file at `path`.
    ///
    /// - Throws: the errors of ``ConfinedRoot/beginWrite(at:options:permissions:)``:
    ///   ``SandboxError/Code/isADirectory`` when a directory is at `path`,
    ///   ``SandboxError/Code/alreadyExists`` (in place, with ``WriteOptions/withoutOverwriting``),
    ///   ``SandboxError/Code/notFound`` for a missing parent, resolution errors.
    init(
        root: ConfinedRoot, path: ContainerPath, options: WriteOptions,
        permissions: mode_t = FilePermissions.privateFile.rawValue
    ) throws(SandboxError) {
        let opened = try root.beginWrite(at: path, options: options, permissions: permissions)
        self.path = path
        self.file = opened.file
        self.descriptor = SharedDescriptor(opened.descriptor, path: path.description)
    }

    deinit {
        if phase.withLock({ $0 == .open }) { discard() }
    }

    /// Publishes the file at its path (and makes it durable, if asked), then closes it; with
    /// `modificationTime` (since the epoch), the file gets that modification time first, on its
    /// descriptor, so no other file at the path ever gets it.
    ///
    /// - Throws: the errors of ``PendingFile/publish(_:)`` (``SandboxError/Code/alreadyExists``
    ///   with ``WriteOptions/withoutOverwriting``, ``SandboxError/Code/noSpace`` and
    ///   ``SandboxError/Code/io`` from `fsync`, …), and ``SandboxError/Code/closed`` when already
    ///   committed or discarded. On failure nothing is published and the file is discarded.
    /// - Returns: the `statx` values of the file published, read from its descriptor once it is
    ///   at its path: its identity (inode, size, modification time), never another file's.
    @discardableResult
    func commit(modificationTime: Duration? = nil) throws(SandboxError) -> FileAttributes {
        let wasOpen = phase.withLock { phase -> Bool in
            guard phase == .open else { return false }
            phase = .committed
            return true
        }
        guard wasOpen else { throw .closed(path.description) }
        do throws(SandboxError) {
            let published = try descriptor.use { fd throws(SandboxError) -> FileAttributes in
                if let modificationTime {
                    let times = [timespec(tv_sec: 0, tv_nsec: CSB_UTIME_OMIT), modificationTime.timespec]
                    _ = try syscall("futimens", path: path.description) { futimens(fd, times) }
                }
                try file.publish(fd)
                return try ConfinedRoot.statx(fd, "", flags: CSB_AT_EMPTY_PATH, path: path.description)
            }
            try descriptor.close()
            return published
        } catch {
            file.discard()
            _ = try? descriptor.close()  // `error` propagates; the descriptor is released either way
            throw error
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
        file.discard()
        _ = try? descriptor.close()  // nothing was published, so a close error loses nothing
    }
}
