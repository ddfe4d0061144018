import Foundation

/// The contents of a folder at one moment: every item beneath it with its type, size and
/// modification date. Read with `getdents64` and `statx`
/// (``/SandboxCore/ConfinedRoot/enumerate(at:recursive:prefetchingAttributes:stoppingAtPathLimit:inNameOrder:_:)``),
/// not `FileManager`, which is an order of magnitude slower on Linux.
///
/// This is the "rescan" of the rescan-and-refresh pattern: events say *that* something changed,
/// a snapshot says *what is there*.
public struct FolderSnapshot: Sendable, Equatable {
    /// One item's state.
    public struct Item: Sendable, Hashable {
        /// What the item is; a symlink is described as itself, never followed.
        public var type: ItemType
        /// Logical size in bytes.
        public var size: Int64
        /// When its contents last changed (`st_mtime`).
        public var modificationDate: Date

        /// An item's state as a snapshot records it; for tests and for snapshots made elsewhere.
        public init(type: ItemType, size: Int64, modificationDate: Date) {
            self.type = type
            self.size = size
            self.modificationDate = modificationDate
        }
    }

    /// The folder the snapshot is of.
    public let folder: ContainerPath
    /// Every item beneath ``folder``, by its path relative to the container's home
    /// (`Documents/a.txt`, as in events).
    public let items: [ContainerPath: Item]

    /// A snapshot made of given items, e.g. one saved by an earlier run, to compare with
    /// ``take(of:in:recursive:)``'s.
    public init(folder: ContainerPath, items: [ContainerPath: Item]) {
        self.folder = folder
        self.items = items
    }

    /// Reads the folder now.
    ///
    /// The snapshot is of the folder at `folder` itself: a symlink there is refused, never followed
    /// (as when watching), and a folder replaced while it is read is read again. Items too deep for
    /// a path to name (4095 bytes) are left out; the folder holding them is listed.
    ///
    /// - Parameters:
    ///   - folder: the folder to read, relative to the container's home (`Documents`).
    ///   - root: the container's root, beneath which `folder` is resolved.
    ///   - recursive: include everything beneath subfolders too.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for a missing folder;
    ///   ``/SandboxCore/SandboxError/Code/notADirectory`` for a file or a symlink;
    ///   ``/SandboxCore/SandboxError/Code/concurrentModification`` when the folder was replaced
    ///   during each of three reads; ``/SandboxCore/SandboxError/Code/escapesContainer`` and the
    ///   other errors of
    ///   ``/SandboxCore/ConfinedRoot/enumerate(at:recursive:prefetchingAttributes:stoppingAtPathLimit:inNameOrder:_:)``.
    public static func take(
        of folder: ContainerPath, in root: ConfinedRoot, recursive: Bool = true
    ) throws(SandboxError) -> FolderSnapshot {
        for _ in 0..<3 {
            let before = try identity(of: folder, in: root)
            var items: [ContainerPath: Item] = [:]
            try root.enumerate(
                at: folder, recursive: recursive, prefetchingAttributes: true, stoppingAtPathLimit: true
            ) { entry throws(SandboxError) in
                guard let attributes = entry.attributes else { return }
                items[entry.path] = Item(
                    type: attributes.type, size: attributes.size, modificationDate: attributes.modificationDate)
            }
            // Replaced meanwhile (say, by a symlink, which the enumeration followed): read again.
            guard try identity(of: folder, in: root) == before else { continue }
            return FolderSnapshot(folder: folder, items: items)
        }
        throw SandboxError(
            .concurrentModification,
            "'\(folder)' was replaced while it was read, three times in a row; read it again once it stops changing.",
            path: folder.description
        )
    }

    /// The device and inode of the folder itself, which must be a directory (not a symlink to one).
    private static func identity(of folder: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> [UInt64] {
        guard let attributes = try root.attributes(at: folder, followingSymlink: false) else {
            throw SandboxError(.notFound, "No folder at '\(folder)'.", path: folder.description)
        }
        guard attributes.type == .directory else {
            let what = attributes.type == .symlink ? "a symbolic link (not followed)" : "not a folder"
            throw SandboxError(
                .notADirectory, "'\(folder)' is \(what); give the path of a folder.", path: folder.description)
        }
        return [attributes.device, attributes.inode]
    }

    /// The paths, sorted.
    public var paths: [ContainerPath] { items.keys.sorted() }

    /// What changed from `older` to this snapshot. Directories count as modified only when their type
    /// changes (their own size and date change with every entry added or removed).
    public func difference(from older: FolderSnapshot) -> FolderDifference {
        var added: [ContainerPath] = []
        var removed: [ContainerPath] = []
        var modified: [ContainerPath] = []
        for (path, item) in items {
            guard let previous = older.items[path] else {
                added.append(path)
                continue
            }
            if previous.type != item.type || (item.type != .directory && previous != item) { modified.append(path) }
        }
        for path in older.items.keys where items[path] == nil { removed.append(path) }
        return FolderDifference(added: added.sorted(), removed: removed.sorted(), modified: modified.sorted())
    }
}

/// The items added, removed and modified between two snapshots, each list sorted.
public struct FolderDifference: Sendable, Equatable {
    /// Paths in the newer snapshot only.
    public var added: [ContainerPath]
    /// Paths in the older snapshot only.
    public var removed: [ContainerPath]
    /// Paths in both whose type, size or modification date changed (a directory's: its type).
    public var modified: [ContainerPath]

    /// A difference made of given lists, which should be sorted, as ``FolderSnapshot/difference(from:)``
    /// makes them.
    public init(added: [ContainerPath] = [], removed: [ContainerPath] = [], modified: [ContainerPath] = []) {
        self.added = added
        self.removed = removed
        self.modified = modified
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && modified.isEmpty }
}
