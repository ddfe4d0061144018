import Crypto
import SandboxCore
import Synchronization

/// The index of a repository as loaded: where each blob is, and the first index record that
/// could not be read (its blobs cannot be found; a lookup that misses says so).
struct LoadedIndex: Sendable {
    var blobs: BlobIndex
    var unreadable: SandboxError?
}

extension Repository {
    // MARK: Packs

    /// The bytes a seal adds to what it seals (nonce and tag when encrypted).
    var sealOverhead: Int { cipher.isEncrypted ? 28 : 0 }

    /// `plain` as a pack stores it: compressed (``BlobCompression``) when that saves enough, then
    /// sealed.
    ///
    /// - Returns: the sealed bytes and their compression (``PackEntry/zstd`` or
    ///   ``PackEntry/uncompressed``).
    /// - Throws: the cipher's errors.
    func sealForPack(_ plain: UnsafeRawBufferPointer) throws(SandboxError) -> (sealed: [UInt8], compression: UInt8) {
        guard let frame = compressionPool.withCompression({ $0.compress(plain) }) else {
            return (try cipher.seal(plain), PackEntry.uncompressed)
        }
        let sealed = try frame.withBytes { (bytes) throws(SandboxError) in try cipher.seal(bytes) }
        return (sealed, PackEntry.zstd)
    }

    /// The plaintext of blob `id` stored in `pack` as `stored`: opened, inflated when its
    /// `compression` is ``PackEntry/zstd`` (bounded by the repository's largest chunk), and checked
    /// against `uncompressedLength` and its id. The one way a packed blob is read (a restore, a
    /// check reading data).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the pack when the blob
    ///   fails authentication, is not one zstd frame of `uncompressedLength` bytes (at most the
    ///   repository's largest chunk), has an unknown compression, or does not match its length or
    ///   id; ``SandboxCore/SandboxError/Code/unknown`` when zstd cannot allocate its context.
    func unpack(
        _ stored: [UInt8], id: String, compression: UInt8, uncompressedLength: Int, pack name: ObjectName
    ) throws(SandboxError) -> [UInt8] {
        let opened = try cipher.open(stored, name: "\(name) (blob \(id))")
        let plain: [UInt8]
        switch compression {
        case PackEntry.uncompressed:
            plain = opened
        case PackEntry.zstd:
            do throws(SandboxError) {
                plain = try compressionPool.withCompression { (codec) throws(SandboxError) in
                    try opened.withBytes { (frame) throws(SandboxError) in
                        try codec.decompress(
                            frame, uncompressedLength: uncompressedLength, blob: id,
                            maximumLength: config.chunking.maximumSize)
                    }
                }
            } catch  where error.code == .repositoryDamaged {
                throw SandboxError(
                    .repositoryDamaged, "The pack '\(name)' holds a damaged blob. \(error.message)",
                    path: name.description)
            }
        default:
            throw PackHeader.damaged(
                name.description,
                "its blob '\(id)' is compressed with method \(compression), which this program does not read")
        }
        guard plain.count == uncompressedLength, plain.withUnsafeBytes({ cipher.blobID(of: $0) }) == id else {
            throw SandboxError(
                .repositoryDamaged,
                "The blob '\(id)' in the pack '\(name)' does not match its id (its contents are damaged). Check the repository, reading its data, to see which files it affects.",
                path: name.description)
        }
        return plain
    }

    /// Writes `pack` as one object `data/<2 hex>/<pack id>`: its sealed blobs, its sealed header,
    /// the header's length. Durable at the next ``RepositoryStorage/synchronize()``.
    ///
    /// - Returns: the pack as an index lists it, and the bytes written (0 when it existed).
    /// - Throws: the storage's errors.
    func writePack(_ pack: FinishedPack) throws(SandboxError) -> (pack: IndexedPack, written: Int) {
        let header = try PackHeader.encode(pack.entries).withBytes { (plain) throws(SandboxError) in
            try cipher.seal(plain)
        }
        var bytes = pack.blobs
        bytes += header
        LittleEndian.append(UInt32(header.count), to: &bytes)
        let id = Array(SHA256.hash(data: bytes)).withUnsafeBytes { BlobKey(bytes: $0) }
        let written = try storage.putIfAbsent(bytes, as: ObjectName(.data, id.hex)) ? bytes.count : 0
        var blobs: [IndexedBlob] = []
        blobs.reserveCapacity(pack.entries.count)
        var offset: UInt32 = 0
        for entry in pack.entries {
            blobs.append(IndexedBlob(entry: entry, offset: offset))
            offset += entry.length
        }
        return (IndexedPack(id: id, blobs: blobs), written)
    }

    // MARK: Index records

    /// Stores `contents` as index records: format 4 (binary, split every
    /// ``IndexFile/blobsPerRecord`` blobs) when it lists packs, the JSON of formats 1–3 when it
    /// lists loose blobs only (a repository of an older format stays readable by its programs).
    ///
    /// - Returns: the records' ids.
    /// - Throws: the storage's errors.
    func storeIndex(_ contents: IndexContents) throws(SandboxError) -> [String] {
        guard !contents.packs.isEmpty else {
            guard !contents.loose.isEmpty else { return [] }
            var blobs: [String: Int] = [:]
            for blob in contents.loose { blobs[blob.id.hex] = Int(blob.size) }
            return [try storeRecord(IndexRecord(blobs: blobs), kind: .index)]
        }
        var ids: [String] = []
        for record in IndexFile.split(contents) {
            ids.append(try storeSealedRecord(IndexFile.encode(record), kind: .index))
        }
        return ids
    }

    /// What the index record `name` lists, in either format.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a damaged record.
    func loadIndexContents(_ name: ObjectName) throws(SandboxError) -> IndexContents {
        let plain = try loadRecordPlaintext(name)
        if IndexFile.isBinary(plain) { return try IndexFile.decode(plain, name: name.description) }
        let record: IndexRecord
        do {
            record = try RepositoryJSON.decode(IndexRecord.self, from: plain, name: name.description)
        } catch {
            throw SandboxError(
                .repositoryDamaged, "The repository object '\(name)' cannot be read: \(error.detail).",
                path: name.description)
        }
        var contents = IndexContents()
        contents.loose.reserveCapacity(record.blobs.count)
        for (id, size) in record.blobs {
            guard let key = BlobKey(hex: id), let size = UInt32(exactly: size) else {
                throw SandboxError(
                    .repositoryDamaged,
                    "The index '\(name)' lists the blob '\(id.prefix(80))' of size \(size): not a blob id and size.",
                    path: name.description)
            }
            contents.loose.append((key, size))
        }
        return contents
    }

    /// The repository's index, loaded once and kept until ``forgetIndex()``. A record that cannot
    /// be read is left out and kept as ``LoadedIndex/unreadable``.
    ///
    /// - Throws: the storage's errors listing the records.
    func loadedIndex() throws(SandboxError) -> LoadedIndex {
        if let cached = indexCache.withLock({ $0 }) { return cached }
        var loaded = LoadedIndex(blobs: BlobIndex(), unreadable: nil)
        for name in try storage.list(.index) {
            do {
                loaded.blobs.add(try loadIndexContents(name))
            } catch  where error.code == .repositoryDamaged {
                if loaded.unreadable == nil { loaded.unreadable = error }
            }
        }
        loaded.blobs.finish()
        indexCache.withLock { $0 = loaded }
        return loaded
    }

    /// Drops the loaded index: a backup or a prune changed it.
    func forgetIndex() {
        indexCache.withLock { $0 = nil }
    }

    // MARK: Reading blobs

    /// The plaintext of blob `id` — from its pack when an index lists it there, else the loose
    /// object `data/<2 hex>/<id>` — checked against its id.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when it is missing (or only
    ///   an unreadable index could say where it is), its pack is missing or too short, or its
    ///   contents do not match its id.
    func loadBlob(_ id: String) throws(SandboxError) -> [UInt8] {
        let index = try loadedIndex()
        if let key = BlobKey(hex: id), let location = index.blobs.location(of: key), let pack = location.pack {
            return try loadPackedBlob(id, pack: pack, at: location)
        }
        if let plain = try loadLooseBlob(id) { return plain }
        if let unreadable = index.unreadable { throw unreadable }
        let name = ObjectName(.data, id)
        throw SandboxError(
            .repositoryDamaged,
            "The blob '\(name)' is missing from the repository '\(storage.location)'. Check the repository to see which snapshots and files it affects.",
            path: name.description)
    }

    /// Blob `id` read from `pack` at `location` (a range read), inflated when compressed, checked
    /// against its length and id (``unpack(_:id:compression:uncompressedLength:pack:)``).
    func loadPackedBlob(_ id: String, pack: BlobKey, at location: BlobIndex.Location) throws(SandboxError) -> [UInt8] {
        let name = ObjectName(.data, pack.hex)
        let stored: [UInt8]
        do {
            stored = try storage.get(
                name, range: Int64(location.offset)..<Int64(location.offset + location.length))
        } catch  where error.code == .notFound {
            throw SandboxError(
                .repositoryDamaged,
                "The pack '\(name)' holding the blob '\(id)' is missing from the repository '\(storage.location)'. Check the repository to see which snapshots and files it affects.",
                path: name.description)
        }
        return try unpack(
            stored, id: id, compression: location.compression, uncompressedLength: location.uncompressedLength,
            pack: name)
    }

    /// The loose blob `data/<2 hex>/<id>` (formats 1–3), checked against its id; `nil` when there
    /// is no such object.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when its contents do not
    ///   match its id.
    func loadLooseBlob(_ id: String) throws(SandboxError) -> [UInt8]? {
        let name = ObjectName(.data, id)
        let stored: [UInt8]
        do {
            stored = try storage.get(name)
        } catch  where error.code == .notFound {
            return nil
        }
        let plain = try cipher.open(stored, name: name.description)
        let actual = plain.withUnsafeBytes { cipher.blobID(of: $0) }
        guard actual == id else {
            throw SandboxError(
                .repositoryDamaged,
                "The blob '\(name)' does not match its id (its contents are damaged). Check the repository, reading its data, to see which files it affects.",
                path: name.description)
        }
        return plain
    }
}
