/// Sealed blobs of one kind gathered for a pack, not yet written.
struct FinishedPack: Sendable {
    var kind: BlobKind
    /// The sealed blobs, concatenated.
    var blobs: [UInt8]
    var entries: [PackEntry]
}

/// Gathers sealed blobs into packs, one open pack a kind: a pack is finished when it reaches
/// ``targetSize`` (so it holds 8 MiB to 8 MiB plus one blob, under 16 MiB with the largest
/// chunk) or ``maximumEntries`` blobs, and the rest at the end of the backup. A state without I/O.
struct PackAssembler {
    static let targetSize = 8 << 20
    /// The most blobs a pack holds when written (a header of 4.2 MB); small files fill packs by
    /// count before size.
    static let maximumEntries = 100_000

    let targetSize: Int
    private var open: [BlobKind: FinishedPack] = [:]

    init(targetSize: Int = Self.targetSize) {
        self.targetSize = targetSize
    }

    /// Bytes gathered and not yet handed out.
    var bytesHeld: Int { open.values.reduce(0) { $0 + $1.blobs.count } }

    /// Adds a sealed blob (of `compression`, ``PackEntry/uncompressed`` or ``PackEntry/zstd``);
    /// returns its pack when that is now full.
    mutating func add(
        _ sealed: [UInt8], id: BlobKey, kind: BlobKind, uncompressedLength: Int,
        compression: UInt8 = PackEntry.uncompressed
    ) -> FinishedPack? {
        var pack = open.removeValue(forKey: kind) ?? FinishedPack(kind: kind, blobs: [], entries: [])
        pack.blobs += sealed
        pack.entries.append(
            PackEntry(
                kind: kind, compression: compression, length: UInt32(sealed.count),
                uncompressedLength: UInt32(uncompressedLength),
                id: id))
        if pack.blobs.count >= targetSize || pack.entries.count >= Self.maximumEntries { return pack }
        open[kind] = pack
        return nil
    }

    /// Adds a blob as another pack stores it (sealed, perhaps compressed; its header entry as it
    /// is): a prune's repacking copies blobs without opening them. Returns its pack when that is
    /// now full.
    mutating func add(stored sealed: ArraySlice<UInt8>, entry: PackEntry) -> FinishedPack? {
        var pack = open.removeValue(forKey: entry.kind) ?? FinishedPack(kind: entry.kind, blobs: [], entries: [])
        pack.blobs += sealed
        pack.entries.append(entry)
        if pack.blobs.count >= targetSize || pack.entries.count >= Self.maximumEntries { return pack }
        open[entry.kind] = pack
        return nil
    }

    /// Every pack still open, however small.
    mutating func finishAll() -> [FinishedPack] {
        defer { open = [:] }
        return open.values.sorted { $0.kind.rawValue < $1.kind.rawValue }
    }
}
