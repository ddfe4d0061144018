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

    /// How many folder tables are empty but have storage of their own. An empty table needs none
    /// (Swift's empty dictionaries share one), and most folders of a large tree are empty leaves: a
    /// table each would cost ~90 bytes a folder.
    var emptyTablesWithStorage: Int {
        let shared = storage(of: [:])
        return model.children.values.count { $0.isEmpty && storage(of: $0) != shared }
    }

    /// The address of a table's storage (a dictionary is one reference to it).
    private func storage(of table: [Key: Bool]) -> UInt? {
        guard MemoryLayout<[Key: Bool]>.size == MemoryLayout<UInt>.size else { return nil }
        return unsafeBitCast(table, to: UInt.self)
    }
}
