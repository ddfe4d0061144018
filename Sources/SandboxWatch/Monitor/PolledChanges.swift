/// What the polling backend reports for two successive snapshots, in the inotify backend's terms:
/// an item whose type changed (a file replaced by a folder) was removed and added, not modified;
/// a removed folder stands for everything that was beneath it.
struct PolledChanges: Sendable, Equatable {
    /// The items gone, outermost only, sorted.
    var removed: [ContainerPath] = []
    /// The items new (everything inside new folders too), sorted, each folder before its contents.
    var added: [ContainerPath] = []
    /// Files whose size or modification date changed, sorted.
    var modified: [ContainerPath] = []

    var isEmpty: Bool { removed.isEmpty && added.isEmpty && modified.isEmpty }

    init(from older: FolderSnapshot, to newer: FolderSnapshot) {
        let difference = newer.difference(from: older)
        var gone = difference.removed
        added = difference.added
        for path in difference.modified {
            if older.items[path]?.type == newer.items[path]?.type {
                modified.append(path)
            } else {
                gone.append(path)
                added.append(path)
            }
        }
        gone.sort()
        added.sort()
        // Sorted by names, a folder's contents come right after it.
        var folder: ContainerPath?
        for path in gone where folder.map({ !path.isDescendant(of: $0) }) ?? true {
            removed.append(path)
            folder = older.items[path]?.type == .directory ? path : nil
        }
    }
}
