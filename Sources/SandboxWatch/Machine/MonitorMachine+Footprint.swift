/// What the machine's tables hold, for tests that keep its memory per folder in check.
extension MonitorMachine {
    /// How many separate path storages the machine's tables hold: a path kept in several tables (a
    /// directory's entry in its parent's table, its own table, its watch both ways) but stored once
    /// counts once.
    var pathStorageCount: Int {
        var storages = Set<UInt>()
        func note(_ key: Key) {
            storages.insert(key.names.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) })
        }
        for (directory, table) in model.children {
            note(directory)
            for item in table.keys { note(item) }
        }
        for key in watches.values { note(key) }
        for key in watchOfDirectory.keys { note(key) }
        for key in writes.keys { note(key) }
        for move in pendingMoves.values { note(move.key) }
        return storages.count
    }
}
