/// What a monitor believes is in its folder: the names in every known directory and whether each is
/// a directory. Keys are a path's components relative to the container's home.
///
/// The model lets the monitor suppress duplicates (an item reported by a scan and then by its own
/// event), re-key watches when a directory is renamed, and diff a rescan after an overflow.
struct FolderModel: Sendable, Equatable {
    typealias Key = [String]

    /// The watched folder.
    let root: Key
    /// Whether subdirectories get tables of their own (recursive monitors).
    let tracksSubdirectories: Bool
    /// Directory → name → is-a-directory.
    private(set) var children: [Key: [String: Bool]]

    init(root: Key, tracksSubdirectories: Bool) {
        self.root = root
        self.tracksSubdirectories = tracksSubdirectories
        self.children = [root: [:]]
    }

    /// Whether `key` is a directory, or `nil` when it is unknown.
    func isDirectory(_ key: Key) -> Bool? {
        guard key.count > root.count, let name = key.last else { return nil }
        return children[Array(key.dropLast())]?[name]
    }

    func contains(_ key: Key) -> Bool { isDirectory(key) != nil }

    /// The number of items beneath the folder.
    var count: Int { children.values.reduce(0) { $0 + $1.count } }

    /// Adds an item whose parent is known. Returns `false` when it was known already or its parent is not.
    @discardableResult
    mutating func insert(_ key: Key, isDirectory: Bool) -> Bool {
        guard key.count > root.count, let name = key.last else { return false }
        let parent = Array(key.dropLast())
        guard children[parent] != nil, children[parent]?[name] == nil else { return false }
        children[parent]?[name] = isDirectory
        if isDirectory && tracksSubdirectories { children[key] = [:] }
        return true
    }

    /// Removes an item and everything beneath it; returns the directories removed (itself first).
    mutating func remove(_ key: Key) -> [Key] {
        guard let isDirectory = isDirectory(key), let name = key.last else { return [] }
        children[Array(key.dropLast())]?[name] = nil
        return isDirectory ? removeTable(key) : []
    }

    private mutating func removeTable(_ key: Key) -> [Key] {
        var removed = [key]
        if let table = children.removeValue(forKey: key) {
            for (name, isDirectory) in table where isDirectory { removed += removeTable(key + [name]) }
        }
        return removed
    }

    /// Moves an item (and, for a directory, everything beneath it) to `destination`, whose parent
    /// must be known and which must be free. Returns the directories moved, as old and new keys.
    mutating func move(_ key: Key, to destination: Key) -> [(old: Key, new: Key)] {
        guard let isDirectory = isDirectory(key), let name = key.last, let newName = destination.last,
            destination.count > root.count, children[Array(destination.dropLast())] != nil
        else { return [] }
        children[Array(key.dropLast())]?[name] = nil
        children[Array(destination.dropLast())]?[newName] = isDirectory
        return isDirectory ? moveTable(key, to: destination) : []
    }

    private mutating func moveTable(_ key: Key, to destination: Key) -> [(old: Key, new: Key)] {
        var moved = [(old: key, new: destination)]
        if let table = children.removeValue(forKey: key) {
            children[destination] = table
            for (name, isDirectory) in table where isDirectory { moved += moveTable(key + [name], to: destination + [name]) }
        }
        return moved
    }

    /// Every item, each directory before its contents, names sorted.
    func allEntries() -> [(key: Key, isDirectory: Bool)] {
        var result: [(key: Key, isDirectory: Bool)] = []
        func visit(_ directory: Key) {
            guard let table = children[directory] else { return }
            for name in table.keys.sorted() {
                let key = directory + [name]
                let isDirectory = table[name] ?? false
                result.append((key, isDirectory))
                if isDirectory { visit(key) }
            }
        }
        visit(root)
        return result
    }
}
