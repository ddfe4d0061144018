/// One change a ``FolderMonitor`` reports.
///
/// Paths are relative to the container's home (`Documents/a.txt`), like every ``/SandboxCore/ContainerPath``, so
/// they can be handed straight back to the container's ``/SandboxCore/ConfinedRoot``.
///
/// Events are hints and the folder is the truth: a name may already be gone when its event is read,
/// and after ``overflow`` some changes were reported only in summary. Re-read the folder (see
/// ``FolderSnapshot``) whenever exact state matters.
public enum FolderEvent: Sendable, Equatable, CustomStringConvertible {
    /// An item appeared: created, linked, or moved in from outside the watched folder. Items found
    /// inside a subfolder that appeared already filled are reported too.
    case added(ContainerPath, isDirectory: Bool)
    /// An item disappeared: deleted, or moved out of the watched folder. A removed directory stands
    /// for everything that was beneath it.
    case removed(ContainerPath, isDirectory: Bool)
    /// An item was renamed or moved within the watched folder; for a directory, everything beneath
    /// it moved with it.
    case renamed(from: ContainerPath, to: ContainerPath, isDirectory: Bool)
    /// An existing file's contents or attributes changed. Reported once per write session: more
    /// writes before the file is ``FolderEvent/ready(_:)`` are folded into this one event.
    case modified(ContainerPath)
    /// A file finished being written: it was closed after writing (`IN_CLOSE_WRITE`), renamed or
    /// linked into place, then stayed quiet for the monitor's quiet period with no process holding it
    /// open for writing. A writer that reopens the file per chunk gives one `ready`.
    case ready(ContainerPath)
    /// Events were lost (the kernel's queue of `fs.inotify.max_queued_events` overflowed, or the
    /// consumer fell more than the buffer limit behind). The monitor rescanned and reported the
    /// differences it found; re-read the folder to be exact.
    case overflow
    /// A problem that does not stop the monitor, e.g. a new subfolder that could not be watched
    /// because `fs.inotify.max_user_watches` is reached (changes beneath it go unreported).
    case failed(SandboxError)
    /// The watched folder itself was deleted or moved away. This is the last event.
    case folderRemoved(ContainerPath)
    /// The app's data container was replaced by a restore (``ContainerFolderMonitor``): the folder
    /// is watched again in the new container, and what it holds is the restored one's — read it
    /// again.
    case containerReplaced(ContainerPath)
    /// The app was uninstalled (``ContainerFolderMonitor``). This is the last event.
    case containerRemoved(ContainerPath)

    /// The event's name as the CLI prints it: `added`, `removed`, `renamed`, `modified`, `ready`,
    /// `overflow`, `failed`, `folder-removed`, `container-replaced` or `container-removed`.
    public var name: String {
        switch self {
        case .added: "added"
        case .removed: "removed"
        case .renamed: "renamed"
        case .modified: "modified"
        case .ready: "ready"
        case .overflow: "overflow"
        case .failed: "failed"
        case .folderRemoved: "folder-removed"
        case .containerReplaced: "container-replaced"
        case .containerRemoved: "container-removed"
        }
    }

    /// The item the event is about (the new name for ``renamed(from:to:isDirectory:)``), or `nil`
    /// for ``overflow`` and ``failed(_:)``.
    public var path: ContainerPath? {
        switch self {
        case .added(let path, _), .removed(let path, _), .modified(let path), .ready(let path),
            .folderRemoved(let path), .containerReplaced(let path), .containerRemoved(let path):
            path
        case .renamed(_, let to, _):
            to
        case .overflow, .failed:
            nil
        }
    }

    /// `added Documents/a.txt`, `renamed Documents/a -> Documents/b`, `overflow`, …
    public var description: String {
        switch self {
        case .renamed(let from, let to, _): "renamed \(from) -> \(to)"
        case .failed(let error): "failed \(error)"
        default: path.map { "\(name) \($0)" } ?? name
        }
    }

    /// Events are equal when they are of one kind with equal paths (byte for byte) and flags.
    public static func == (lhs: FolderEvent, rhs: FolderEvent) -> Bool {
        switch (lhs, rhs) {
        case (.added(let a, let x), .added(let b, let y)), (.removed(let a, let x), .removed(let b, let y)):
            a == b && x == y
        case (.renamed(let a, let b, let x), .renamed(let c, let d, let y)): a == c && b == d && x == y
        case (.modified(let a), .modified(let b)), (.ready(let a), .ready(let b)),
            (.folderRemoved(let a), .folderRemoved(let b)), (.containerReplaced(let a), .containerReplaced(let b)),
            (.containerRemoved(let a), .containerRemoved(let b)):
            a == b
        case (.overflow, .overflow): true
        case (.failed(let a), .failed(let b)): a.code == b.code && a.message == b.message
        default: false
        }
    }
}
