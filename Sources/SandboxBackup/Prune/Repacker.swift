import SandboxCore

/// Copies the used blobs of a ``RepackPlan`` into new packs, as stored: a pack's blobs by range
/// reads (one a run of adjacent used blobs), loose blobs whole; sealed bytes and header entries
/// are copied as they are, so repacking needs neither the key's plaintext nor a codec.
enum Repacker {
    /// Writes the new packs and makes them durable.
    ///
    /// - Returns: the new packs, as an index lists them.
    /// - Throws: the storage's errors; ``SandboxCore/SandboxError/Code/repositoryDamaged`` when a
    ///   pack to copy from is missing or shorter than its index says.
    static func write(
        _ plan: RepackPlan, to repository: Repository, refreshing lock: RepositoryLock
    ) throws(SandboxError) -> [IndexedPack] {
        var assembler = PackAssembler()
        var written: [IndexedPack] = []
        func add(_ sealed: ArraySlice<UInt8>, _ entry: PackEntry) throws(SandboxError) {
            if let full = assembler.add(stored: sealed, entry: entry) {
                written.append(try repository.writePack(full).pack)
                try lock.refreshIfDue()
            }
        }
        for repack in plan.repacked {
            let name = ObjectName(.data, repack.pack.id.hex)
            for run in runs(repack.used) {
                let start = Int64(run[0].offset)
                let end = run.reduce(start) { max($0, Int64($1.offset) + Int64($1.entry.length)) }
                let bytes = try read(name, start..<end, from: repository.storage)
                for blob in run {
                    let from = Int(Int64(blob.offset) - start)
                    try add(bytes[from..<(from + Int(blob.entry.length))], blob.entry)
                }
            }
        }
        for loose in plan.looseCopied {
            let bytes = try repository.storage.get(loose.name)
            let entry = PackEntry(
                kind: loose.kind, compression: 0, length: UInt32(bytes.count), uncompressedLength: loose.size,
                id: loose.id)
            try add(bytes[...], entry)
        }
        for pack in assembler.finishAll() { written.append(try repository.writePack(pack).pack) }
        try repository.storage.synchronize()  // the packs are durable before an index lists them
        return written
    }

    /// `blobs` (in pack order) as runs of blobs that follow one another without a gap.
    static func runs(_ blobs: [IndexedBlob]) -> [[IndexedBlob]] {
        var runs: [[IndexedBlob]] = []
        for blob in blobs.sorted(by: { $0.offset < $1.offset }) {
            if let last = runs.last?.last, Int64(last.offset) + Int64(last.entry.length) == Int64(blob.offset) {
                runs[runs.count - 1].append(blob)
            } else {
                runs.append([blob])
            }
        }
        return runs
    }

    private static func read(
        _ name: ObjectName, _ range: Range<Int64>, from storage: any RepositoryStorage
    ) throws(SandboxError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try storage.get(name, range: range)
        } catch  where error.code == .notFound {
            throw SandboxError(
                .repositoryDamaged,
                "The pack '\(name)' is missing from the repository '\(storage.location)': its blobs cannot be copied. Check the repository to see which snapshots and files it affects.",
                path: name.description)
        }
        guard bytes.count == range.count else {
            throw PackHeader.damaged(
                name.description, "it ends before byte \(range.upperBound), where its index says a blob ends")
        }
        return bytes
    }
}
