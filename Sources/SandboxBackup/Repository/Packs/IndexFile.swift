import SandboxCore

/// A blob in a pack, as an index lists it: its header entry and where it starts.
struct IndexedBlob: Hashable, Sendable {
    var entry: PackEntry
    var offset: UInt32
}

/// A pack, as an index lists it.
struct IndexedPack: Sendable {
    var id: BlobKey
    var blobs: [IndexedBlob]

    /// The pack's size as its blobs and header imply it (blobs, sealed header, 4-byte trailer).
    func impliedSize(sealOverhead: Int) -> Int64 {
        var size = Int64(sealOverhead + blobs.count * PackHeader.entrySize + 4)
        for blob in blobs { size += Int64(blob.entry.length) }
        return size
    }
}

/// What one `index/<id>` record lists: packs with their blobs (format 4), and loose blobs
/// (`data/<2 hex>/<blob id>`, one object a blob, as formats 1–3 store them) with plaintext sizes.
struct IndexContents: Sendable {
    var packs: [IndexedPack] = []
    var loose: [(id: BlobKey, size: UInt32)] = []

    var blobCount: Int { packs.reduce(loose.count) { $0 + $1.blobs.count } }
}

/// The binary `index/<id>` record of format 4 (docs/repository-format.md), sealed as every record:
///
///     "SBI4" ‖ pack count u32 ‖ { pack id (32) ‖ blob count u32 ‖ blob entry (46) × count } × packs
///            ‖ loose count u32 ‖ { blob id (32) ‖ size u32 } × loose
///
/// A blob entry: kind u8, compression u8, offset u32, stored length u32, uncompressed length u32,
/// blob id (32); integers little-endian. Formats 1–3 wrote JSON `{"blobs": {id: size}}`, still read.
enum IndexFile {
    static let magic: [UInt8] = Array("SBI4".utf8)
    static let blobEntrySize = 46
    static let looseEntrySize = 36
    /// The most blobs one record lists when written (a record stays a few MiB); larger indexes
    /// are split into several records.
    static let blobsPerRecord = 100_000

    /// Whether `plain` is a format-4 record (rather than a JSON one).
    static func isBinary(_ plain: [UInt8]) -> Bool {
        plain.starts(with: magic)
    }

    static func encode(_ contents: IndexContents) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(8 + contents.blobCount * blobEntrySize + contents.packs.count * 36)
        LittleEndian.append(UInt32(contents.packs.count), to: &bytes)
        for pack in contents.packs {
            bytes += pack.id.bytes
            LittleEndian.append(UInt32(pack.blobs.count), to: &bytes)
            for blob in pack.blobs {
                bytes.append(blob.entry.kind.rawValue)
                bytes.append(blob.entry.compression)
                LittleEndian.append(blob.offset, to: &bytes)
                LittleEndian.append(blob.entry.length, to: &bytes)
                LittleEndian.append(blob.entry.uncompressedLength, to: &bytes)
                bytes += blob.entry.id.bytes
            }
        }
        LittleEndian.append(UInt32(contents.loose.count), to: &bytes)
        for blob in contents.loose {
            bytes += blob.id.bytes
            LittleEndian.append(blob.size, to: &bytes)
        }
        return bytes
    }

    /// The contents of a format-4 record; every count is checked against the bytes left before
    /// anything is allocated for it.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the record.
    static func decode(_ plain: [UInt8], name: String) throws(SandboxError) -> IndexContents {
        try plain.withBytes { (all) throws(SandboxError) in
            var reader = Reader(bytes: all, name: name)
            guard isBinary(plain) else { throw reader.damaged("it does not start with 'SBI4'") }
            reader.position = magic.count
            var contents = IndexContents()
            let packCount = try reader.count(each: 36)
            contents.packs.reserveCapacity(packCount)
            for _ in 0..<packCount {
                let id = try reader.key()
                let blobCount = try reader.count(each: blobEntrySize)
                var blobs: [IndexedBlob] = []
                blobs.reserveCapacity(blobCount)
                for _ in 0..<blobCount {
                    let kindByte = try reader.byte()
                    guard let kind = BlobKind(rawValue: kindByte) else {
                        throw reader.damaged("a blob of pack \(id.hex) has the unknown kind \(kindByte)")
                    }
                    let compression = try reader.byte()
                    guard PackEntry.reads(compression: compression) else {
                        throw reader.damaged(
                            "a blob of pack \(id.hex) is compressed with method \(compression), which this program does not read"
                        )
                    }
                    let offset = try reader.uint32()
                    let length = try reader.uint32()
                    let uncompressed = try reader.uint32()
                    let blobID = try reader.key()
                    guard UInt64(offset) + UInt64(length) <= UInt64(UInt32.max) else {
                        throw reader.damaged("blob \(blobID.hex) of pack \(id.hex) ends past 4 GiB")
                    }
                    blobs.append(
                        IndexedBlob(
                            entry: PackEntry(
                                kind: kind, compression: compression, length: length,
                                uncompressedLength: uncompressed,
                                id: blobID),
                            offset: offset))
                }
                contents.packs.append(IndexedPack(id: id, blobs: blobs))
            }
            let looseCount = try reader.count(each: looseEntrySize)
            contents.loose.reserveCapacity(looseCount)
            for _ in 0..<looseCount {
                let id = try reader.key()
                contents.loose.append((id, try reader.uint32()))
            }
            guard reader.position == all.count else {
                throw reader.damaged("\(all.count - reader.position) bytes follow its last entry")
            }
            return contents
        }
    }

    /// `contents` as records of at most ``blobsPerRecord`` blobs each (a pack is never split).
    static func split(_ contents: IndexContents) -> [IndexContents] {
        var records: [IndexContents] = []
        var current = IndexContents()
        for pack in contents.packs {
            if current.blobCount > 0, current.blobCount + pack.blobs.count > blobsPerRecord {
                records.append(current)
                current = IndexContents()
            }
            current.packs.append(pack)
        }
        for blob in contents.loose {
            if current.blobCount >= blobsPerRecord {
                records.append(current)
                current = IndexContents()
            }
            current.loose.append(blob)
        }
        if current.blobCount > 0 || records.isEmpty { records.append(current) }
        return records
    }

    /// Reads integers and keys from a record, refusing to read past its end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        let name: String
        var position = 0

        init(bytes: UnsafeRawBufferPointer, name: String) {
            self.bytes = bytes
            self.name = name
        }

        func damaged(_ problem: String) -> SandboxError {
            SandboxError(
                .repositoryDamaged,
                "The index '\(name)' cannot be read: \(problem). Prune the repository to rebuild the index.",
                path: name)
        }

        mutating func need(_ count: Int) throws(SandboxError) {
            guard bytes.count - position >= count else {
                throw damaged("it ends at byte \(bytes.count), inside an entry at \(position)")
            }
        }

        mutating func byte() throws(SandboxError) -> UInt8 {
            try need(1)
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint32() throws(SandboxError) -> UInt32 {
            try need(4)
            defer { position += 4 }
            return LittleEndian.uint32(bytes, at: position)
        }

        mutating func key() throws(SandboxError) -> BlobKey {
            try need(32)
            defer { position += 32 }
            return BlobKey(bytes: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + 32)]))
        }

        /// A count of entries of `size` bytes each, which the bytes left can hold.
        mutating func count(each size: Int) throws(SandboxError) -> Int {
            let count = Int(try uint32())
            guard count <= (bytes.count - position) / size else {
                throw damaged("it lists \(count) entries of \(size) bytes with \(bytes.count - position) bytes left")
            }
            return count
        }
    }
}
