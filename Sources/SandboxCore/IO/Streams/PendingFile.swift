import CSandboxShims
import Glibc
import SystemPackage

/// A whole file being written, and the one step that publishes it at its name.
///
/// Every write of a whole file goes through here: ``AtomicFile`` for those made in one call,
/// ``StagedFile`` for those that span many (``FileWriter``).
///
/// **Atomic** (``WriteOptions/atomic``): the bytes go to an unnamed `O_TMPFILE` inode in the
/// target's directory or, on file systems without `O_TMPFILE`, to a hidden temporary
/// (``TemporaryName``) in the root's staging directory (``ConfinedRoot/stagingDirectory``), else
/// beside the target. ``publish(_:)`` then
/// 1. gives the new file what the replaced one had: owner, group, mode, user attributes
///    (``ReplacedFile``);
/// 2. `fsync`s the file (``WriteOptions/durable``);
/// 3. puts it at its name in one step: a new name is linked directly (`linkat` never replaces, so
///    ``WriteOptions/withoutOverwriting`` holds); a replaced one needs the file under a second
///    name for a moment, in the staging directory, renamed over the target (`renameat`);
/// 4. `fsync`s the directory (``WriteOptions/durable``).
///
/// A process killed at any moment leaves the old file or the new one at the name. The only debris
/// a kill can leave is a temporary in the staging directory (a container's `tmp/`, which a restart
/// empties) or, for a root without one, beside the target
/// (``ConfinedRoot/removeInterruptedWrites(in:olderThan:)``).
///
/// **In place** (without ``WriteOptions/atomic``): the file is truncated and written at its name;
/// publishing makes it durable (`fsync` of the file and of its directory), nothing more.
///
/// `SANDBOX_TMPFILE=off` in the environment makes atomic writes use named temporaries, as on file
/// systems without `O_TMPFILE` (for tests).
struct PendingFile: Sendable {
    /// Where the bytes are until the file is published.
    enum Location: Sendable {
        /// At the name itself (not atomic).
        case inPlace
        /// An unnamed `O_TMPFILE` inode.
        case unnamed
        /// A temporary name in a directory (the staging directory or the target's).
        case named(HeldDirectory, FileName)
    }

    /// The descriptor of a pending file, with the file: the caller owns both.
    struct Opened: ~Copyable {
        let file: PendingFile
        let descriptor: OwnedDescriptor

        /// Runs `body` on the descriptor, then publishes the file; discards it if either fails.
        consuming func write(_ body: (CInt) throws(SandboxError) -> Void) throws(SandboxError) {
            do throws(SandboxError) {
                try body(descriptor.rawValue)
                try file.publish(descriptor.rawValue)
            } catch {
                file.discard()
                throw error
            }
        }
    }

    let path: ContainerPath
    let options: WriteOptions
    /// The target's directory.
    let parent: HeldDirectory
    /// The target's name in ``parent``.
    let name: FileName
    /// Where a replacing write puts its second name; `nil`: beside the target.
    let staging: HeldDirectory?
    let location: Location

    /// Whether `O_TMPFILE` is tried: read once, from `SANDBOX_TMPFILE`.
    static let triesUnnamedFiles: Bool = getenv("SANDBOX_TMPFILE").map { String(cString: $0) } != "off"

    /// A file written in place, open as a descriptor the caller made.
    static func inPlace(
        _ descriptor: consuming OwnedDescriptor, parent: HeldDirectory, named name: FileName, path: ContainerPath,
        options: WriteOptions
    ) -> Opened {
        Opened(
            file: PendingFile(
                path: path, options: options, parent: parent, name: name, staging: nil, location: .inPlace),
            descriptor: descriptor)
    }

    /// Opens the temporary of an atomic write to `name` in `parent`.
    ///
    /// - Parameter staging: the directory for temporary names, or `nil` for beside the target.
    /// - Throws: the errors of `openat`: ``SandboxError/Code/noSpace``,
    ///   ``SandboxError/Code/permissionDenied``, ``SandboxError/Code/tooManyOpenFiles``, ….
    static func atomic(
        in parent: HeldDirectory,
        named name: FileName,
        path: ContainerPath,
        options: WriteOptions,
        permissions: mode_t,
        staging: HeldDirectory?
    ) throws(SandboxError) -> Opened {
        let rendered = path.description
        if triesUnnamedFiles {
            let result = retryingEINTR("openat(O_TMPFILE)", path: rendered) {
                openat(parent.rawValue, ".", CSB_O_TMPFILE | O_WRONLY | CSB_O_CLOEXEC, permissions)
            }
            switch result {
            case .success(let fd):
                let file = PendingFile(
                    path: path, options: options, parent: parent, name: name, staging: staging, location: .unnamed)
                return Opened(file: file, descriptor: OwnedDescriptor(taking: fd))
            case .failure(let error) where error == .notSupported || error == .isDirectory || error == .invalidArgument:
                break  // this file system has no O_TMPFILE
            case .failure(let error):
                throw .systemCall("openat(O_TMPFILE)", errno: error, path: rendered)
            }
        }
        // A named temporary is renamed into place at the end: it must be on the target's mount.
        let directory = staging.flatMap { MountIdentity.areSame($0.rawValue, parent.rawValue) ? $0 : nil } ?? parent
        let temporary = TemporaryName.make(for: name)
        let fd = try syscall("openat", path: rendered) {
            openat(
                directory.rawValue, temporary.cString, O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC,
                permissions)
        }
        TemporaryName.hold(fd)
        let file = PendingFile(
            path: path, options: options, parent: parent, name: name, staging: staging,
            location: .named(directory, temporary))
        return Opened(file: file, descriptor: OwnedDescriptor(taking: fd))
    }

    /// Publishes the file written to `fd` at its name (see the type's steps). On failure nothing is
    /// published: call ``discard()``.
    ///
    /// - Throws: ``SandboxError/Code/alreadyExists`` with ``WriteOptions/withoutOverwriting``;
    ///   ``SandboxError/Code/noSpace`` and ``SandboxError/Code/io`` from `fsync`;
    ///   ``SandboxError/Code/isADirectory`` when a directory took the name meanwhile; the errors of
    ///   ``ReplacedFile/carryMetadata(from:named:to:path:)``.
    func publish(_ fd: CInt) throws(SandboxError) {
        let durable = options.contains(.durable)
        let rendered = path.description
        switch location {
        case .inPlace:
            break
        case .unnamed, .named:
            if !options.contains(.withoutOverwriting) {
                try ReplacedFile.carryMetadata(from: parent.rawValue, named: name, to: fd, path: path)
            }
        }
        if durable {
            _ = try syscall("fsync", path: rendered) { fsync(fd) }
        }
        switch location {
        case .inPlace:
            break
        case .unnamed:
            try link(fd)
        case .named(let directory, let temporary):
            try rename(temporary, in: directory)
        }
        if durable {
            try Self.synchronizeDirectory(parent.rawValue, path: path.parent)
        }
    }

    /// Abandons the file: a named temporary is removed; an in-place file keeps what was written.
    func discard() {
        if case .named(let directory, let temporary) = location {
            _ = unlinkat(directory.rawValue, temporary.cString, 0)  // cleanup; ENOENT if already gone
        }
    }

    /// Links the unnamed file `fd` at the name.
    private func link(_ fd: CInt) throws(SandboxError) {
        let rendered = path.description
        let source = "/proc/self/fd/\(fd)"  // AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH
        if linkat(AT_FDCWD, source, parent.rawValue, name.cString, CSB_AT_SYMLINK_FOLLOW) == 0 { return }
        guard errno == EEXIST, !options.contains(.withoutOverwriting) else {
            throw .systemCall("linkat", errno: Errno(rawValue: errno), path: rendered)
        }
        // linkat cannot replace a name: link under a second name, in the staging directory where a
        // kill cannot leave it among the user's files, then rename it over the target.
        let temporary = TemporaryName.make(for: name)
        var directory = staging ?? parent
        if linkat(AT_FDCWD, source, directory.rawValue, temporary.cString, CSB_AT_SYMLINK_FOLLOW) != 0 {
            guard errno == EXDEV, directory !== parent else {
                throw .systemCall("linkat", errno: Errno(rawValue: errno), path: rendered)
            }
            directory = parent  // the staging directory is on another mount: beside the target
            _ = try syscall("linkat", path: rendered) {
                linkat(AT_FDCWD, source, parent.rawValue, temporary.cString, CSB_AT_SYMLINK_FOLLOW)
            }
        }
        if renameat(directory.rawValue, temporary.cString, parent.rawValue, name.cString) != 0 {
            let error = Errno(rawValue: errno)
            _ = unlinkat(directory.rawValue, temporary.cString, 0)  // cleanup; `error` propagates
            throw .systemCall("renameat", errno: error, path: rendered)
        }
    }

    /// Renames the named temporary over (or, without overwriting, to) the name.
    private func rename(_ temporary: FileName, in directory: HeldDirectory) throws(SandboxError) {
        let rendered = path.description
        guard options.contains(.withoutOverwriting) else {
            _ = try syscall("renameat", path: rendered) {
                renameat(directory.rawValue, temporary.cString, parent.rawValue, name.cString)
            }
            return
        }
        if csb_renameat2(directory.rawValue, temporary.cString, parent.rawValue, name.cString, CSB_RENAME_NOREPLACE)
            == 0
        {
            return
        }
        guard errno == EINVAL else { throw .systemCall("renameat2", errno: Errno(rawValue: errno), path: rendered) }
        // No RENAME_NOREPLACE on this file system: link (which never replaces), then unlink.
        _ = try syscall("linkat", path: rendered) {
            linkat(directory.rawValue, temporary.cString, parent.rawValue, name.cString, 0)
        }
        _ = unlinkat(directory.rawValue, temporary.cString, 0)  // the file is published; a leftover name is only debris
    }

    /// `fsync` of a directory, so that a name created or renamed in it survives a crash.
    static func synchronizeDirectory(_ directory: CInt, path: ContainerPath) throws(SandboxError) {
        let fd = try syscall("openat", path: path.description) {
            openat(directory, ".", O_RDONLY | CSB_O_DIRECTORY | CSB_O_CLOEXEC)
        }
        let owned = OwnedDescriptor(taking: fd)
        _ = try syscall("fsync", path: path.description) { fsync(owned.rawValue) }
    }
}
