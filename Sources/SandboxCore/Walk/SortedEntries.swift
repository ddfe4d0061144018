import Glibc

/// One directory's entries read whole and put in name order, for a walk that visits a directory's
/// items sorted (``TreeWalk/Order/byName``).
///
/// The names' bytes share one buffer (no allocation per entry): a directory of a million names
/// costs its names' bytes and 16 bytes each, not a million arrays.
struct SortedEntries {
    /// The names, each NUL-terminated, in the order read.
    private var bytes: [CChar] = []
    /// Where each name starts in `bytes`, and its `d_type`: in name order once sorted.
    private var entries: [(start: Int, type: UInt8)] = []

    /// How many entries there are.
    var count: Int { entries.count }

    /// Adds the NUL-terminated `name` (copied) and its `d_type`.
    mutating func append(_ name: UnsafePointer<CChar>, type: UInt8) {
        entries.append((bytes.count, type))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name, count: strlen(name) + 1))
    }

    /// Puts the entries in name order, byte by byte as ``FileName`` compares names (`strcmp`
    /// compares bytes as unsigned, and a name before every longer name it begins).
    mutating func sort() {
        let bytes = self.bytes
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            entries.sort { strcmp(base + $0.start, base + $1.start) < 0 }
        }
    }

    /// Calls `body` with entry `index`'s NUL-terminated name (valid only during the call) and
    /// `d_type`.
    func withEntry<Value>(
        _ index: Int, _ body: (UnsafePointer<CChar>, UInt8) throws(SandboxError) -> Value
    ) throws(SandboxError) -> Value {
        let entry = entries[index]
        return try bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(SandboxError) -> Value in
                // Never empty here: the entry was appended with its name's bytes.
                guard let base = buffer.baseAddress else { preconditionFailure("an entry without its name") }
                return try body(base + entry.start, entry.type)
            }
        }.get()
    }
}
