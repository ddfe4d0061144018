import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Starts writing the whole file at `path`: the caller writes to the descriptor, then publishes
    /// or discards the ``PendingFile``.
    ///
    /// A symlink at `path` is replaced by an atomic write (as Foundation does) when it stays inside
    /// the root, and followed, within the root, by an in-place one; one that leads out is refused
    /// either way.
    ///
    /// - Throws: ``SandboxError/Code/isADirectory`` when a directory is at `path`;
    ///   ``SandboxError/Code/escapesContainer`` for a symlink at `path` that leads out;
    ///   ``SandboxError/Code/notFound`` for a missing parent; in place,
    ///   ``SandboxError/Code/notARegularFile`` for a FIFO, socket or device and
    ///   ``SandboxError/Code/alreadyExists`` with ``WriteOptions/withoutOverwriting``; resolution
    ///   errors.
    func beginWrite(
        at path: ContainerPath, options: WriteOptions, permissions: mode_t = FilePermissions.privateFile.rawValue
    ) throws(SandboxError) -> PendingFile.Opened {
        let parentDirectory = try openParent(of: path)
        switch try attributes(at: path, followingSymlink: false)?.type {
        case .directory?:
            throw .rule(.isADirectory, "'\(path)' is a directory; a file cannot replace it.", path: path.description)
        case .symlink?:
            // Writing to a link that leads out of the root is refused, as every other operation is.
            do throws(SandboxError) {
                _ = try open(path, flags: CSB_O_PATH)
            } catch  where error.code == .notFound {
                // dangling inside the root: nothing to protect
            }
        default:
            break
        }
        let name = parentDirectory.name
        let parent = HeldDirectory(taking: parentDirectory.descriptor)
        if options.contains(.atomic) {
            return try PendingFile.atomic(
                in: parent, named: name, path: path, options: options, permissions: permissions,
                staging: openStagingDirectory()
            )
        }
        let exclusive = options.contains(.withoutOverwriting) ? O_EXCL : O_TRUNC
        let file = try openRegularFile(path, flags: O_WRONLY | O_CREAT | exclusive, mode: permissions)
        return PendingFile.inPlace(file, parent: parent, named: name, path: path, options: options)
    }
}
