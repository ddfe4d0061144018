/// Watches, listings and rescans.
extension MonitorMachine {
    /// One item of a directory listing.
    struct ListedEntry: Sendable, Equatable {
        var name: String
        var isDirectory: Bool
    }

    /// A watch now covers `key`. The same watch descriptor for another key (the kernel gives one
    /// descriptor per inode) moves it.
    mutating func watchAdded(_ watch: Int32, for key: Key) {
        if let previous = watches[watch], previous != key { watchOfDirectory[previous] = nil }
        if let old = watchOfDirectory[key], old != watch { watches[old] = nil }
        watches[watch] = key
        watchOfDirectory[key] = watch
    }

    /// Adding the watch failed. A directory that went away is not a problem (its removal is on its
    /// way); anything else (limits, permissions) is reported.
    mutating func watchFailed(_ key: Key, error: SandboxError) -> [Action] {
        if error.code == .notFound || error.code == .notADirectory { return [] }
        return [.emit(.failed(error))]
    }

    /// The starting state, recorded without events. Returns the subdirectories to watch next (when
    /// recursive).
    mutating func recordBaseline(directory: Key, entries: [ListedEntry]) -> [Key] {
        var subdirectories: [Key] = []
        for entry in entries {
            let key = directory + [entry.name]
            model.insert(key, isDirectory: entry.isDirectory)
            if entry.isDirectory && configuration.recursive { subdirectories.append(key) }
        }
        return subdirectories
    }

    /// The listing of a directory just watched: what it holds that no event told of is reported as
    /// added (a folder created and filled at once), and its subdirectories are watched in turn.
    mutating func scanned(directory: Key, entries: [ListedEntry], at now: Instant) -> [Action] {
        guard !isFinished, model.isDirectory(directory) == true || directory == rootKey else { return [] }
        var actions: [Action] = []
        for entry in entries {
            let key = directory + [entry.name]
            guard !model.contains(key) else { continue }
            actions += appeared(key, isDirectory: entry.isDirectory, at: now)
        }
        return actions
    }

    /// The whole folder listed after an overflow: names gone are reported removed, names new are
    /// reported added (and watched), so nothing that happened while events were lost goes unreported.
    /// `entries` lists each directory before its contents.
    mutating func rescanned(entries: [(key: Key, isDirectory: Bool)], at now: Instant) -> [Action] {
        guard !isFinished else { return [] }
        pendingMoves = [:]  // the listing is the truth now
        var present: [Key: Bool] = [:]
        for entry in entries { present[entry.key] = entry.isDirectory }
        var actions: [Action] = []
        for known in model.allEntries() where model.contains(known.key) && present[known.key] != known.isDirectory {
            actions += disappeared(known.key, unwatching: true)
        }
        for entry in entries where !model.contains(entry.key) {
            actions += appeared(entry.key, isDirectory: entry.isDirectory, at: now)
        }
        return actions
    }
}
