import SandboxCore

/// The blobs of a copy: each source blob a snapshot names is read from the source (several at a
/// time, as the source's storage prefers), checked against its id, and handed to the
/// destination's ``BlobWriter``, which names it under the destination's key, drops it when the
/// destination holds it and otherwise seals and packs it. The id it gets there is kept, so every
/// blob is read once a copy and the trees that name it are rewritten with its new id.
///
/// Blob ids are keyed per repository when it is encrypted (``RepositoryCipher/blobID(of:)``), so
/// in general a blob's destination id is known only from its plaintext. When neither repository
/// is encrypted the ids are the same SHA-256, and a blob the destination's index lists is not read.
///
/// Memory: one batch of plaintext (``batchBytes``, or one blob when larger) is held while it is
/// queued, plus what the writer's bounded queue holds.
struct BlobTranslation {
    /// Most plaintext bytes read ahead in one batch.
    static let batchBytes = 8 << 20

    let source: Repository
    let writer: BlobWriter
    /// The source's index (sizes of blobs, to bound a batch).
    let sourceIndex: BlobIndex
    /// The destination's index, consulted when both repositories name blobs alike.
    let destinationIndex: BlobIndex
    /// Whether a blob has the same id in both repositories (neither is encrypted).
    let sameIDs: Bool
    /// Runs between reads: the locks' refreshes.
    let between: () throws(SandboxError) -> Void
    /// Source id → destination id, of every blob met so far.
    private(set) var translated: [String: String] = [:]
    private(set) var blobsRead = 0

    init(
        source: Repository, destination: Repository, writer: BlobWriter, destinationIndex: BlobIndex,
        between: @escaping () throws(SandboxError) -> Void
    ) throws(SandboxError) {
        self.source = source
        self.writer = writer
        let loaded = try source.loadedIndex()
        sourceIndex = loaded.blobs
        self.destinationIndex = destinationIndex
        sameIDs = !source.cipher.isEncrypted && !destination.cipher.isEncrypted
        self.between = between
    }

    /// The destination ids of source blobs `ids` (of `kind`), in order, copying those not met yet.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming a source blob that is
    ///   missing or does not match its id; the writers' and the storages' errors.
    mutating func translate(_ ids: [String], kind: BlobKind) throws(SandboxError) -> [String] {
        var missing: [String] = []
        var queued: Set<String> = []
        for id in ids where translated[id] == nil && queued.insert(id).inserted {
            if sameIDs, let key = BlobKey(hex: id), destinationIndex.contains(key) {
                translated[id] = id
            } else {
                missing.append(id)
            }
        }
        var start = 0
        while start < missing.count {
            var end = start
            var bytes = 0
            while end < missing.count {
                let size = plainSize(of: missing[end])
                if end > start && bytes + size > Self.batchBytes { break }
                bytes += size
                end += 1
            }
            try copy(Array(missing[start..<end]), kind: kind)
            start = end
        }
        var result: [String] = []
        result.reserveCapacity(ids.count)
        for id in ids {
            guard let copied = translated[id] else {
                throw SandboxError(.unknown, "The copy lost track of the blob '\(id)'.")
            }
            result.append(copied)
        }
        return result
    }

    /// Reads `batch` from the source, several at a time, and queues it in order for the writers.
    private mutating func copy(_ batch: [String], kind: BlobKind) throws(SandboxError) {
        let source = source
        let outcomes = try ParallelCalls.map(
            batch.count, threads: source.storage.preferredConcurrency, name: "copy-reader", stoppingAtFailure: true,
            between: between
        ) { index in
            do throws(SandboxError) {
                return .success(try source.loadBlob(batch[index]))
            } catch {
                return .failure(error)
            }
        }
        var tickets: [Int] = []
        tickets.reserveCapacity(batch.count)
        for outcome in outcomes {
            let plain = try outcome.get()
            tickets.append(
                try plain.withBytes { (bytes) throws(SandboxError) in try writer.enqueue(bytes, kind: kind) })
        }
        guard tickets.count == batch.count else {
            throw SandboxError(.unknown, "The copy's reads ended before every blob was read.")
        }
        for (old, new) in zip(batch, try writer.ids(for: tickets)) { translated[old] = new }
        blobsRead += batch.count
    }

    /// The plaintext size the source's index gives `id`, or the most a chunk may be.
    private func plainSize(of id: String) -> Int {
        BlobKey(hex: id).flatMap { sourceIndex.location(of: $0)?.uncompressedLength }
            ?? source.config.chunking.maximumSize
    }
}
