/// Watches, listings and rescans.
extension MonitorMachine {
    /// One item of a directory listing.
    struct ListedEntry: Sendable, Equatable {
        var name: FileName
        var isDirectory: Bool
    }

    /// A directory watched, then listed (see ``TreeArming``).
    struct ArmedDirectory: Sendable, Equatable {
        var key: Key
        var watch: Int32
        var entries: [ListedEntry]
    }

    /// The folder watched and listed from the top: every directory reached, and those beneath the
    /// folder that could not be (other than by having vanished, which their parent's events tell).
    struct Arming: Sendable {
        var directories: [ArmedDirectory] = []
        var failures: [Failure] = []

        struct Failure: Error, Sendable {
            var key: Key
            /// The watch added before listing failed, if it was.
            var watch: Int32?
            var error: SandboxError
        }
    }

    /// A watch now covers `key`. The same watch descriptor for another key (the kernel gives one
    /// descriptor per inode) moves it.
    mutating func watchAdded(_ watch: Int32, for key: Key) {
        if let previous = watches.updateValue(key, forKey: watch), previous != key { watchOfDirectory[previous] = nil }
        if let old = watchOfDirectory.updateValue(watch, forKey: key), old != watch { watches[old] = nil }
    }

    /// Adding the watch failed. A directory that went away or was replaced (by a file, a symlink)
    /// is not a problem: its removal or rename is on its way. Anything else (limits, permissions)
    /// is reported.
    mutating func watchFailed(_ key: Key, error: SandboxError) -> [Action] {
        if Self.isGone(error) { return [] }
        return [.emit(.failed(error))]
    }

    /// Whether `error`, from opening a directory by its name, means that it is no longer there as a
    /// directory.
    static func isGone(_ error: SandboxError) -> Bool {
        error.code == .notFound || error.code == .notADirectory || error.code == .symlinkLoop
    }

    /// The starting state, recorded without events. Returns the failures to report (folders beneath
    /// that could not be watched).
    mutating func recordBaseline(_ arming: Arming) -> [Action] {
        model = Self.model(of: arming, root: rootKey, recursive: configuration.recursive)
        let watched = arming.directories.count + arming.failures.count
        watches.reserveCapacity(watched)
        watchOfDirectory.reserveCapacity(watched)
        for directory in arming.directories { watchAdded(directory.watch, for: directory.key) }
        for failure in arming.failures {
            if let watch = failure.watch { watchAdded(watch, for: failure.key) }
        }
        return arming.failures.map { .emit(.failed($0.error)) }
    }

    /// The listing of a directory just watched: what it holds that no event told of is reported as
    /// added (a folder created and filled at once), and its subdirectories are watched in turn.
    mutating func scanned(directory: Key, entries: [ListedEntry], at now: Instant) -> [Action] {
        guard !isFinished, model.isDirectory(directory) == true || directory == rootKey else { return [] }
        var actions: [Action] = []
        for entry in entries {
            let key = directory.appending(entry.name)
            guard !model.contains(key) else { continue }
            actions += appeared(key, isDirectory: entry.isDirectory, at: now)
        }
        return actions
    }

    /// The model of the folder as `arming` found it.
    ///
    /// Each directory's path is stored once: the key of a subdirectory in its parent's table is the
    /// key the arming watched it under (which also keys its own table and its watch), not a copy.
    /// The arming lists its directories in the order it reached them, parents before their contents
    /// and subdirectories in listing order, so the next directory it reached is the one to compare
    /// with each subdirectory listed; one that was not reached (it vanished, or failed) gets a key
    /// of its own.
    static func model(of arming: Arming, root: Key, recursive: Bool) -> FolderModel {
        var model = FolderModel(root: root, tracksSubdirectories: recursive)
        if recursive {
            let subdirectories = arming.directories.reduce(0) { $0 + $1.entries.count(where: \.isDirectory) }
            model.reserveDirectories(subdirectories + 1)
        }
        var next = 1  // the next directory reached beneath the folder
        var items: [(key: Key, isDirectory: Bool)] = []
        for directory in arming.directories {
            items.removeAll(keepingCapacity: true)
            items.reserveCapacity(directory.entries.count)
            for entry in directory.entries {
                if entry.isDirectory, next < arming.directories.count,
                    arming.directories[next].key.isChild(named: entry.name, of: directory.key)
                {
                    items.append((arming.directories[next].key, true))
                    next += 1
                } else {
                    items.append((directory.key.appending(entry.name), entry.isDirectory))
                }
            }
            model.fill(directory.key, with: items)
        }
        return model
    }
}
