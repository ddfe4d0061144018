import SandboxCore

/// What a prune does with each data object, decided from the index and the blobs the kept
/// snapshots use; no I/O.
///
/// A blob stored twice (concurrent backups) is kept once: in the pack that holds the most used
/// bytes; its other copies count as unused. Packs with nothing used are deleted; packs with unused
/// bytes are rewritten, the emptiest first, until the unused bytes left are within
/// ``RepackPolicy``; loose blobs (formats 1–3) still used go into packs when the repository is of
/// format 4.
struct RepackPlan {
    /// A pack whose used blobs are copied into new packs.
    struct Repack {
        var pack: IndexedPack
        /// The blobs copied, in the order of the pack.
        var used: [IndexedBlob]
    }

    /// A loose blob copied into a pack.
    struct LooseCopy {
        var name: ObjectName
        var id: BlobKey
        var size: UInt32
        var kind: BlobKind
    }

    var kept: [IndexedPack] = []
    var repacked: [Repack] = []
    var looseCopied: [LooseCopy] = []
    /// Loose blobs left as they are (a repository of format 3 keeps its format).
    var looseKept: [(id: BlobKey, size: UInt32)] = []
    /// Objects deleted whole, with the blobs each held.
    var doomed: [(name: ObjectName, blobs: Int)] = []
    /// The stored bytes of used blobs copied from the packs rewritten.
    var bytesRepacked: Int64 = 0
    /// The bytes of unused blobs left in the packs kept.
    var unusedBytesLeft: Int64 = 0

    /// The blobs a repack or a loose copy writes.
    var blobsCopied: Int { repacked.reduce(looseCopied.count) { $0 + $1.used.count } }

    /// - Parameters:
    ///   - objects: the repository's `data/` objects, as listed.
    ///   - packs: every pack an index lists, by id.
    ///   - looseSizes: the plaintext sizes the indexes give loose blobs.
    ///   - referenced: the blobs the kept snapshots use, with their kind.
    ///   - packing: whether loose blobs go into packs (the repository is of format 4).
    ///   - looseSize: the size of a loose blob no index gives (a HEAD).
    init(
        objects: [ObjectName], packs: [BlobKey: IndexedPack], looseSizes: [BlobKey: UInt32],
        referenced: [BlobKey: BlobKind], packing: Bool, policy: RepackPolicy, sealOverhead: Int,
        looseSize: (ObjectName) throws(SandboxError) -> UInt32
    ) throws(SandboxError) {
        var listed: [IndexedPack] = []
        var loose: [(name: ObjectName, key: BlobKey)] = []
        for name in objects {
            let key = BlobKey(hex: name.name)
            if let pack = key.flatMap({ packs[$0] }) {
                listed.append(pack)
            } else if let key, referenced[key] != nil {
                loose.append((name, key))
            } else {
                doomed.append((name, 1))  // a loose blob no snapshot uses, or a pack no index lists
            }
        }
        // The packs with the most used bytes claim their blobs first: a duplicate stays in the
        // pack that is kept anyway, and a small pack of duplicates (a concurrent backup's) empties.
        let ordered = listed.map { pack in
            (pack, pack.blobs.reduce(Int64(0)) { referenced[$1.entry.id] == nil ? $0 : $0 + Int64($1.entry.length) })
        }.enumerated().sorted {
            $0.element.1 != $1.element.1 ? $0.element.1 > $1.element.1 : $0.offset < $1.offset
        }
        var claimed: Set<BlobKey> = []
        var candidates: [(repack: Repack, unused: Int64, size: Int64)] = []
        var usedTotal: Int64 = 0
        for (pack, _) in ordered.map(\.element) {
            var used: [IndexedBlob] = []
            var unused: Int64 = 0
            for blob in pack.blobs {
                if referenced[blob.entry.id] != nil, claimed.insert(blob.entry.id).inserted {
                    used.append(blob)
                } else {
                    unused += Int64(blob.entry.length)
                }
            }
            if used.isEmpty {
                doomed.append((ObjectName(.data, pack.id.hex), pack.blobs.count))
                continue
            }
            usedTotal += used.reduce(0) { $0 + Int64($1.entry.length) }
            candidates.append((Repack(pack: pack, used: used), unused, pack.impliedSize(sealOverhead: sealOverhead)))
        }
        for (name, key) in loose {
            if claimed.contains(key) {
                doomed.append((name, 1))  // also in a pack
            } else if packing, let kind = referenced[key] {
                var size = looseSizes[key]
                if size == nil { size = try looseSize(name) }
                looseCopied.append(LooseCopy(name: name, id: key, size: size ?? 0, kind: kind))
                usedTotal += Int64(size ?? 0) + Int64(sealOverhead)
            } else {
                var size = looseSizes[key]
                if size == nil { size = try looseSize(name) }
                looseKept.append((key, size ?? 0))
            }
        }
        var unusedTotal = candidates.reduce(0) { $0 + $1.unused }
        let allowed = policy.unusedBytesAllowed(used: usedTotal)
        var chosen = Set<Int>()
        // The emptiest first, until what is left is within the limit.
        let byEmptiness = candidates.indices.filter { candidates[$0].unused > 0 }.sorted {
            Double(candidates[$0].unused) / Double(candidates[$0].size)
                > Double(candidates[$1].unused) / Double(candidates[$1].size)
        }
        for index in byEmptiness where unusedTotal > allowed {
            chosen.insert(index)
            unusedTotal -= candidates[index].unused
        }
        if policy.repackSmall {
            let small = candidates.indices.filter {
                candidates[$0].size < Int64(PackAssembler.targetSize) * 8 / 10 && !chosen.contains($0)
            }
            if small.count >= 2 || (!small.isEmpty && (!chosen.isEmpty || !looseCopied.isEmpty)) {
                chosen.formUnion(small)
            }
        }
        for (index, candidate) in candidates.enumerated() {
            if chosen.contains(index) {
                repacked.append(candidate.repack)
                bytesRepacked += candidate.repack.used.reduce(0) { $0 + Int64($1.entry.length) }
            } else {
                kept.append(candidate.repack.pack)
                unusedBytesLeft += candidate.unused
            }
        }
    }
}
