/// Where every blob of a repository is, in memory: a sorted array of 48-byte entries (the id as
/// 32 bytes; pack ordinal, offset, stored length, plaintext length, kind and compression in 16), searched by
/// bisection — about 46 MiB for 1,000,000 blobs, where a dictionary of hex strings took several
/// times that.
struct BlobIndex: Sendable {
    /// Where a blob is.
    struct Location: Hashable, Sendable {
        /// The pack's id, or `nil` for a loose blob (`data/<2 hex>/<blob id>`).
        var pack: BlobKey?
        var offset: Int
        /// The stored (sealed) length in the pack; 0 for a loose blob.
        var length: Int
        var uncompressedLength: Int
        var kind: BlobKind
        /// ``PackEntry/uncompressed`` or ``PackEntry/zstd`` (a loose blob is uncompressed).
        var compression: UInt8 = PackEntry.uncompressed
    }

    private struct Entry {
        var id: BlobKey
        /// Index into `packs`, or `UInt32.max` for a loose blob.
        var pack: UInt32
        var offset: UInt32
        var length: UInt32
        /// The plaintext length (below ``maximumSize``); the top bit is set for a tree blob, the
        /// next for a zstd one.
        var sizeAndKind: UInt32
    }

    private static let loose = UInt32.max
    private static let treeBit: UInt32 = 1 << 31
    private static let zstdBit: UInt32 = 1 << 30
    /// Larger plaintext lengths are kept as this (no legal blob comes near: a chunk is at most 32 MiB).
    private static let maximumSize: UInt32 = zstdBit - 1
    private var packs: [BlobKey] = []
    private var entries: [Entry] = []
    private var sorted = true

    init() {}

    /// Adds what one index record lists. Call ``finish()`` before looking anything up.
    mutating func add(_ contents: IndexContents) {
        entries.reserveCapacity(entries.count + contents.blobCount)
        for pack in contents.packs {
            let ordinal = UInt32(packs.count)
            packs.append(pack.id)
            for blob in pack.blobs {
                let kindBit = blob.entry.kind == .tree ? Self.treeBit : 0
                let zstdBit = blob.entry.compression == PackEntry.zstd ? Self.zstdBit : 0
                entries.append(
                    Entry(
                        id: blob.entry.id, pack: ordinal, offset: blob.offset, length: blob.entry.length,
                        sizeAndKind: min(blob.entry.uncompressedLength, Self.maximumSize) | kindBit | zstdBit))
            }
        }
        for blob in contents.loose {
            entries.append(
                Entry(
                    id: blob.id, pack: Self.loose, offset: 0, length: 0, sizeAndKind: min(blob.size, Self.maximumSize)))
        }
        sorted = false
    }

    /// Sorts the entries; of a blob listed twice, one location is kept.
    mutating func finish() {
        guard !sorted else { return }
        entries.sort { $0.id < $1.id }
        var kept = 0
        for index in entries.indices where kept == 0 || entries[kept - 1].id != entries[index].id {
            entries[kept] = entries[index]
            kept += 1
        }
        entries.removeLast(entries.count - kept)
        sorted = true
    }

    /// How many distinct blobs are listed.
    var count: Int { entries.count }

    /// The bytes the index's tables reserve: 48 an entry (its id, pack ordinal, offset, length,
    /// size and kind) and 32 a pack.
    var reservedBytes: Int {
        entries.capacity * MemoryLayout<Entry>.stride + packs.capacity * MemoryLayout<BlobKey>.stride
    }

    /// Whether blob `id` is listed.
    func contains(_ id: BlobKey) -> Bool { position(of: id) != nil }

    /// Where blob `id` is, or `nil` when no index lists it.
    func location(of id: BlobKey) -> Location? {
        guard let index = position(of: id) else { return nil }
        let entry = entries[index]
        return Location(
            pack: entry.pack == Self.loose ? nil : packs[Int(entry.pack)], offset: Int(entry.offset),
            length: Int(entry.length), uncompressedLength: Int(entry.sizeAndKind & Self.maximumSize),
            kind: entry.sizeAndKind & Self.treeBit != 0 ? .tree : .data,
            compression: entry.sizeAndKind & Self.zstdBit != 0 ? PackEntry.zstd : PackEntry.uncompressed)
    }

    private func position(of id: BlobKey) -> Int? {
        precondition(sorted, "BlobIndex.finish() was not called")
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].id == id ? low : nil
    }
}
