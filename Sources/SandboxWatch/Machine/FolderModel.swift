/// What a monitor believes is in its folder: the items of every known directory and whether each is
/// a directory, keyed by their paths in the container (byte-exact, as read from the disk).
///
/// The model lets the monitor suppress duplicates (an item reported by a scan and then by its own
/// event), re-key watches when a directory is renamed, and diff a rescan after an overflow.
struct FolderModel: Sendable, Equatable {
    typealias Key = ContainerPath

    /// The watched folder.
    let root: Key
    /// Whether subdirectories get tables of their own (recursive monitors).
    let tracksSubdirectories: Bool
    /// Directory → its items → whether each is a directory.
    private(set) var children: [Key: [Key: Bool]]

    init(root: Key, tracksSubdirectories: Bool) {
        self.root = root
        self.tracksSubdirectories = tracksSubdirectories
        self.children = [root: [:]]
    }

    /// Whether `key` is a directory, or `nil` when it is unknown.
    func isDirectory(_ key: Key) -> Bool? {
        guard key.names.count > root.names.count else { return nil }
        return children[key.parent]?[key]
    }

    func contains(_ key: Key) -> Bool { isDirectory(key) != nil }

    /// The number of items beneath the folder.
    var count: Int { children.values.reduce(0) { $0 + $1.count } }

    /// Adds an item whose parent is known. Returns `false` when it was known already or its parent is not.
    @discardableResult
    mutating func insert(_ key: Key, isDirectory: Bool) -> Bool {
        guard key.names.count > root.names.count else { return false }
        let parent = key.parent
        guard children[parent] != nil, children[parent]?[key] == nil else { return false }
        children[parent]?[key] = isDirectory
        if isDirectory && tracksSubdirectories { children[key] = [:] }
        return true
    }

    /// Makes room for `count` directory tables at once (a whole tree about to be recorded), so that
    /// recording it does not grow the table of tables step by step, rehashing every path each time.
    mutating func reserveDirectories(_ count: Int) { children.reserveCapacity(count) }

    /// Adds the listing of a known directory at once: one table, built at its final size, and for a
    /// recursive model an empty table for each subdirectory. Items already known are kept as they
    /// are (the first listing of a name wins, as with ``insert(_:isDirectory:)``); the items of a
    /// directory that is not known are not added. Each item's key is kept as given: a caller that
    /// holds the key elsewhere (the watch tables) shares its storage instead of copying it.
    mutating func fill(_ directory: Key, with items: [(key: Key, isDirectory: Bool)]) {
        // An empty listing leaves the directory's table as it is: an empty table has no storage of
        // its own, and a leaf folder of a large tree must not get one.
        guard !items.isEmpty, let index = children.index(forKey: directory) else { return }
        guard children.values[index].isEmpty else {
            for item in items { insert(item.key, isDirectory: item.isDirectory) }
            return
        }
        var table: [Key: Bool] = [:]
        table.reserveCapacity(items.count)
        table.merge(items) { first, _ in first }
        children.values[index] = table
        guard tracksSubdirectories else { return }
        for (key, isDirectory) in table where isDirectory { children[key] = [:] }
    }

    /// Removes an item and everything beneath it; returns the directories removed (itself first).
    mutating func remove(_ key: Key) -> [Key] {
        guard let isDirectory = isDirectory(key) else { return [] }
        children[key.parent]?[key] = nil
        return isDirectory ? removeTable(key) : []
    }

    /// Removes the table of `key` and those beneath it, with an explicit stack (deep trees cannot
    /// exhaust the reader thread's stack).
    private mutating func removeTable(_ key: Key) -> [Key] {
        var removed: [Key] = []
        var stack = [key]
        while let directory = stack.popLast() {
            removed.append(directory)
            guard let table = children.removeValue(forKey: directory) else { continue }
            stack += table.filter(\.value).keys.sorted().reversed()
        }
        return removed
    }

    /// Moves an item (and, for a directory, everything beneath it) to `destination`, whose parent
    /// must be known and which must be free. Returns the directories moved, as old and new keys,
    /// the moved item first.
    mutating func move(_ key: Key, to destination: Key) -> [(old: Key, new: Key)] {
        guard let isDirectory = isDirectory(key), destination.names.count > root.names.count,
            children[destination.parent] != nil, !contains(destination)
        else { return [] }
        children[key.parent]?[key] = nil
        children[destination.parent]?[destination] = isDirectory
        return isDirectory ? moveTable(key, to: destination) : []
    }

    private mutating func moveTable(_ key: Key, to destination: Key) -> [(old: Key, new: Key)] {
        var moved: [(old: Key, new: Key)] = []
        var stack = [(old: key, new: destination)]
        while let (old, new) = stack.popLast() {
            moved.append((old, new))
            guard let table = children.removeValue(forKey: old) else { continue }
            var renamed: [Key: Bool] = [:]
            for (item, isDirectory) in table {
                let newItem = item.rebased(from: old, to: new)
                renamed[newItem] = isDirectory
                if isDirectory { stack.append((item, newItem)) }
            }
            children[new] = renamed
        }
        return moved
    }

    /// Every item, each directory before its contents, sorted within a directory.
    func allEntries() -> [(key: Key, isDirectory: Bool)] {
        var result: [(key: Key, isDirectory: Bool)] = []
        var stack: [Key] = [root]
        while let directory = stack.popLast() {
            guard let table = children[directory] else { continue }
            // Visited depth-first with an explicit stack: a deep tree cannot exhaust the thread's stack.
            var subdirectories: [Key] = []
            for item in table.keys.sorted() {
                let isDirectory = table[item] ?? false
                result.append((item, isDirectory))
                if isDirectory { subdirectories.append(item) }
            }
            stack += subdirectories.reversed()
        }
        return result
    }

    /// The items beneath `directory` (not itself), from ``allEntries()``.
    func entries(beneath directory: Key) -> [(key: Key, isDirectory: Bool)] {
        allEntries().filter { $0.key.isDescendant(of: directory) && $0.key != directory }
    }
}

extension ContainerPath {
    /// This path, which lies at or beneath `source`, moved beneath `destination`
    /// (`Documents/a/b` rebased from `Documents/a` to `Documents/z` is `Documents/z/b`).
    func rebased(from source: ContainerPath, to destination: ContainerPath) -> ContainerPath {
        var result = destination
        for name in names.dropFirst(source.names.count) { result = result.appending(name) }
        return result
    }

    /// Whether this path is `directory` with `name` appended, compared name by name (no path is made).
    func isChild(named name: FileName, of directory: ContainerPath) -> Bool {
        names.count == directory.names.count + 1 && names.last == name
            && names.dropLast().elementsEqual(directory.names)
    }
}
