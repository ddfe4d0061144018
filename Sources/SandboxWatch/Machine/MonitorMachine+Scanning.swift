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
        if let previous = watches[watch], previous != key { watchOfDirectory[previous] = nil }
        if let old = watchOfDirectory[key], old != watch { watches[old] = nil }
        watches[watch] = key
        watchOfDirectory[key] = watch
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
    static func model(of arming: Arming, root: Key, recursive: Bool) -> FolderModel {
        var model = FolderModel(root: root, tracksSubdirectories: recursive)
        // Parents are listed before their contents.
        for directory in arming.directories {
            for entry in directory.entries {
                model.insert(directory.key.appending(entry.name), isDirectory: entry.isDirectory)
            }
        }
        return model
    }
}
