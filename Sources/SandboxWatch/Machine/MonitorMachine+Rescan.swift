/// Recovering from lost events.
extension MonitorMachine {
    /// The whole folder watched and listed again after an overflow (``Action/rescan``).
    ///
    /// Nothing of the old state is trusted: the model is rebuilt from the listing, and what differs
    /// from the old one is reported (names gone as removed, a removed directory standing for its
    /// contents; names new as added, with everything inside new directories). Every directory was
    /// watched again, so a folder deleted and re-created while events were lost is re-armed (the
    /// folder itself too); watches of directories that are gone or moved out are removed. Moves
    /// waiting for their partner are dropped (the listing says where things are now), and every file
    /// that was being written or settling settles again from now, because its close may have been
    /// lost: it is probed after the quiet period and reported ready once no one writes it.
    ///
    /// A directory that could not be listed (say, its permissions changed) keeps what was known
    /// beneath it, and its error is reported.
    mutating func rescanned(_ arming: Arming, at now: Instant) -> [Action] {
        guard !isFinished else { return [] }
        pendingMoves = [:]
        var fresh = Self.model(of: arming, root: rootKey, recursive: configuration.recursive)
        var freshWatches: [Int32: Key] = [:]
        freshWatches.reserveCapacity(arming.directories.count + arming.failures.count)
        for directory in arming.directories { freshWatches[directory.watch] = directory.key }
        var actions: [Action] = []
        for failure in arming.failures {
            actions.append(.emit(.failed(failure.error)))
            if let watch = failure.watch { freshWatches[watch] = failure.key }
            guard fresh.isDirectory(failure.key) == true else { continue }
            for entry in model.entries(beneath: failure.key) {
                fresh.insert(entry.key, isDirectory: entry.isDirectory)
                if entry.isDirectory, let watch = watchOfDirectory[entry.key], freshWatches[watch] == nil {
                    freshWatches[watch] = entry.key
                }
            }
            if let watch = watchOfDirectory[failure.key], freshWatches[watch] == nil {
                freshWatches[watch] = failure.key
            }
        }

        let stale = watches.keys.filter { freshWatches[$0] == nil }.sorted()
        actions += stale.map { .unwatch($0) }
        actions += differences(from: model, to: fresh)

        let quiet = now + configuration.quietPeriod
        var freshWrites: [Key: WriteState] = [:]
        for key in writes.keys where fresh.isDirectory(key) == false { freshWrites[key] = .settling(quiet) }
        for entry in fresh.allEntries() where !entry.isDirectory && model.isDirectory(entry.key) != false {
            freshWrites[entry.key] = .settling(quiet)
        }
        model = fresh
        writes = freshWrites
        watches = [:]
        watchOfDirectory = [:]
        watches.reserveCapacity(freshWatches.count)
        watchOfDirectory.reserveCapacity(freshWatches.count)
        for (watch, key) in freshWatches.sorted(by: { $0.key < $1.key }) { watchAdded(watch, for: key) }
        return actions
    }

    /// `removed` for what `old` has and `new` has not (or with another type), a removed directory
    /// standing for its contents; then `added` for what is new, directories before their contents.
    private func differences(from old: FolderModel, to new: FolderModel) -> [Action] {
        var actions: [Action] = []
        var removedDirectories: Set<Key> = []
        for entry in old.allEntries() where new.isDirectory(entry.key) != entry.isDirectory {
            var ancestor = entry.key.parent
            var covered = false
            while ancestor.names.count > rootKey.names.count {
                if removedDirectories.contains(ancestor) {
                    covered = true
                    break
                }
                ancestor = ancestor.parent
            }
            guard !covered else { continue }
            if entry.isDirectory { removedDirectories.insert(entry.key) }
            actions.append(.emit(.removed(entry.key, isDirectory: entry.isDirectory)))
        }
        for entry in new.allEntries() where old.isDirectory(entry.key) != entry.isDirectory {
            actions.append(.emit(.added(entry.key, isDirectory: entry.isDirectory)))
        }
        return actions
    }
}
