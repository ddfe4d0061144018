/// Items appearing, disappearing and moving.
extension MonitorMachine {
    /// A new name: created, linked, moved in, or found by a scan.
    mutating func appeared(_ key: Key, isDirectory: Bool, at now: Instant) -> [Action] {
        guard !model.contains(key) else {
            // Already reported (a scan got there first): no second `added`, but a new write session.
            if !isDirectory && writes[key] == nil { writes[key] = .settling(now + configuration.quietPeriod) }
            return []
        }
        guard model.insert(key, isDirectory: isDirectory) else { return [] }
        // A directory is watched before it is reported, so that a consumer reacting to its
        // `added` (say, by moving a file into it) is sure to be seen.
        let watch: [Action] = isDirectory && configuration.recursive ? [.watch(key)] : []
        if !isDirectory { writes[key] = .settling(now + configuration.quietPeriod) }
        return watch + [.emit(.added(key, isDirectory: isDirectory))]
    }

    /// A name went away: deleted, or moved out (then its watches must be removed by hand).
    mutating func disappeared(_ key: Key, unwatching: Bool) -> [Action] {
        forgetWrites(under: key)
        guard let isDirectory = model.isDirectory(key) else { return [] }
        var actions: [Action] = []
        for directory in model.remove(key) {
            guard let watch = watchOfDirectory[directory] else { continue }
            forgetWatch(watch)
            if unwatching { actions.append(.unwatch(watch)) }
        }
        return actions + [.emit(.removed(key, isDirectory: isDirectory))]
    }

    /// `IN_MOVED_FROM`: the first half of a rename, or a move out of the folder. It waits for its
    /// partner for the pairing window.
    mutating func movedFrom(_ key: Key, isDirectory: Bool, cookie: UInt32, at now: Instant) -> [Action] {
        guard cookie != 0, model.contains(key) else { return disappeared(key, unwatching: true) }
        moveOrder += 1
        pendingMoves[cookie] = PendingMove(
            key: key, isDirectory: isDirectory, deadline: now + configuration.pairingWindow, order: moveOrder)
        return []
    }

    /// A paired `IN_MOVED_FROM`/`IN_MOVED_TO`.
    ///
    /// A renamed directory ends with a watch on its new name and a scan of its contents, and every
    /// directory beneath it that had no watch gets one: a folder created and renamed before its
    /// watch could be added (built in a staging folder, then renamed into place) is watched under
    /// its new name, and what was put in it meanwhile is reported.
    mutating func renamed(_ source: Key, to destination: Key, isDirectory: Bool, at now: Instant) -> [Action] {
        guard model.contains(source) else { return appeared(destination, isDirectory: isDirectory, at: now) }
        guard source != destination else { return [] }
        var actions: [Action] = []
        if model.contains(destination) {
            // Renamed over an existing item, which is gone now; its watches go with it.
            forgetWrites(under: destination)
            for directory in model.remove(destination) {
                guard let watch = watchOfDirectory[directory] else { continue }
                forgetWatch(watch)
                actions.append(.unwatch(watch))
            }
        }
        var unwatched: [Key] = []
        for (old, new) in model.move(source, to: destination) {
            guard let watch = watchOfDirectory.removeValue(forKey: old) else {
                unwatched.append(new)
                continue
            }
            watchOfDirectory[new] = watch
            watches[watch] = new
        }
        moveWrites(from: source, to: destination, isDirectory: isDirectory, at: now)
        if isDirectory && configuration.recursive {
            actions.append(.watch(destination))
            actions += unwatched.filter { $0 != destination }.map { .watch($0) }
        }
        return actions + [.emit(.renamed(from: source, to: destination, isDirectory: isDirectory))]
    }

    private mutating func moveWrites(from source: Key, to destination: Key, isDirectory: Bool, at now: Instant) {
        let state = writes.removeValue(forKey: source)
        if isDirectory {
            for (key, state) in writes where key.isDescendant(of: source) {
                writes[key] = nil
                writes[key.rebased(from: source, to: destination)] = state
            }
        } else {
            // Renamed into place is a candidate for `ready`, like a close after writing.
            writes[destination] = state == .writing ? .writing : .settling(now + configuration.quietPeriod)
        }
    }

    /// An unpaired move of `key` (or of an item beneath it) must be reported before anything newer
    /// about `key`, so that a consumer sees the events of one name in order. Events from inside a
    /// directory whose move is pending keep its old name, which is consistent until the move is known.
    mutating func resolveMoves(touching key: Key) -> [Action] {
        let touching = pendingMoves.filter { $0.value.key.isDescendant(of: key) }.sorted {
            $0.value.order < $1.value.order
        }
        var actions: [Action] = []
        for (cookie, move) in touching {
            pendingMoves[cookie] = nil
            actions += disappeared(move.key, unwatching: true)
        }
        return actions
    }
}
