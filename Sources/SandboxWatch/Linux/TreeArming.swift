import CSandboxShims
import Glibc

/// Watches directories, then lists them: a directory is opened beneath the container by the core
/// (its last component not followed), watched through that descriptor, then read through the same
/// descriptor, so the watch and the listing are of one directory, and whatever lands in it in
/// between is seen by one or the other (or both, and the machine drops the duplicate).
enum TreeArming {
    /// Watches and lists `folder` and, when `recursive`, every directory beneath it, parents before
    /// their contents. Used to arm a monitor and to re-arm it after an overflow.
    ///
    /// - Throws: the error of the folder itself: ``/SandboxCore/SandboxError/Code/notFound``,
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` (also for a symlink), the watch limit
    ///   (``/SandboxCore/SandboxError/Code/noSpace``). Directories beneath it that vanished meanwhile are left
    ///   out (their parent's events tell of them); other failures beneath it are in
    ///   ``MonitorMachine/Arming/failures``.
    static func arm(
        _ folder: ContainerPath, recursive: Bool, root: ConfinedRoot, inotify: InotifyInstance
    ) throws(SandboxError) -> MonitorMachine.Arming {
        var arming = MonitorMachine.Arming()
        let reader = DirectoryReader()
        var queue = [folder]
        var index = 0
        while index < queue.count {
            let key = queue[index]
            index += 1
            switch arm(key, root: root, inotify: inotify, reader: reader) {
            case .success(let directory):
                arming.directories.append(directory)
                if recursive {
                    queue += directory.entries.filter(\.isDirectory).map { key.appending($0.name) }
                }
            case .failure(let failure) where key == folder:
                if let watch = failure.watch { inotify.removeWatch(watch) }
                throw failure.error.code == .symlinkLoop ? symlinkRefused(folder, failure.error) : failure.error
            case .failure(let failure) where failure.watch == nil && MonitorMachine.isGone(failure.error):
                continue
            case .failure(let failure):
                arming.failures.append(failure)
            }
        }
        return arming
    }

    /// Watches and lists the directory at `key`.
    static func arm(
        _ key: ContainerPath, root: ConfinedRoot, inotify: InotifyInstance, reader: borrowing DirectoryReader
    ) -> Result<MonitorMachine.ArmedDirectory, MonitorMachine.Arming.Failure> {
        var watch: Int32?
        guard key.byteCount <= ContainerPath.maximumLength else {
            return .failure(.init(key: key, watch: nil, error: beyondPathLimit(key)))
        }
        do throws(SandboxError) {
            let directory = try root.openDirectory(key, flags: O_RDONLY, followFinalSymlink: false)
            let added = try inotify.addWatch(on: directory, path: key)
            watch = added
            let entries = try list(directory, path: key, reader: reader)
            return .success(.init(key: key, watch: added, entries: entries))
        } catch {
            return .failure(.init(key: key, watch: watch, error: error))
        }
    }

    /// The entries of an open directory, typed from `d_type`, or `fstatat` where the file system
    /// leaves it unknown.
    private static func list(
        _ directory: borrowing OwnedDescriptor, path: ContainerPath, reader: borrowing DirectoryReader
    ) throws(SandboxError) -> [MonitorMachine.ListedEntry] {
        var entries: [MonitorMachine.ListedEntry] = []
        let fd = directory.rawValue
        try reader.forEachEntry(of: fd, path: path.description) { name, type throws(SandboxError) in
            var isDirectory = type == CSB_DT_DIR
            if type == CSB_DT_UNKNOWN {
                var info = stat()
                // Gone since it was listed: a file as good as any; its removal event follows.
                isDirectory = fstatat(fd, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
            }
            // The name's bytes as listed, whatever they are: never skipped, never repaired.
            entries.append(.init(name: FileName(listed: name), isDirectory: isDirectory))
        }
        return entries
    }

    /// A directory deeper than a path can name: it and what is beneath it are not watched.
    static func beyondPathLimit(_ key: ContainerPath) -> SandboxError {
        let shown = String(key.description.prefix(80))
        return SandboxError(
            .nameTooLong,
            "'\(shown)…' is \(key.byteCount) bytes long, deeper than a path can name (\(ContainerPath.maximumLength) bytes): it and what is beneath it are not watched. Move it higher up to watch it.",
            path: shown
        )
    }

    /// The watched folder is a symlink (`O_NOFOLLOW` says `ELOOP`): refused as not a folder.
    private static func symlinkRefused(_ folder: ContainerPath, _ error: SandboxError) -> SandboxError {
        SandboxError(
            .notADirectory,
            "'\(folder)' is a symbolic link (or leads through a loop of them), not a folder: folders are watched by their own path, and symbolic links are not followed.",
            path: folder.description, cause: error.cause
        )
    }
}
