import SandboxCore

/// What a blob holds: file contents, or a tree, manifest or keychain record. Packs hold one kind
/// each, so a restore or a check that reads trees reads few packs.
enum BlobKind: UInt8, Sendable {
    case data = 0
    case tree = 1
}

/// One blob in a pack's header: fixed 42 bytes — kind (1), compression (1), stored length (4,
/// little-endian), uncompressed length (4, little-endian), id (32). Offsets follow from the
/// lengths, in file order.
struct PackEntry: Hashable, Sendable {
    var kind: BlobKind
    /// ``PackEntry/uncompressed`` or ``PackEntry/zstd``; any other value is refused when read.
    var compression: UInt8
    /// The sealed blob's length in the pack.
    var length: UInt32
    /// The plaintext's length.
    var uncompressedLength: UInt32
    var id: BlobKey

    /// The compression byte of a blob sealed as it is.
    static let uncompressed: UInt8 = 0
    /// The compression byte of a blob sealed as one zstd frame (``BlobCompression``) that declares
    /// ``uncompressedLength``.
    static let zstd: UInt8 = 1

    /// Whether this program reads blobs of compression `byte`.
    static func reads(compression byte: UInt8) -> Bool { byte == uncompressed || byte == zstd }
}

/// A pack's header and trailer: `blob₁ … blobₙ ‖ sealed header ‖ sealed header length (u32 LE)`.
enum PackHeader {
    static let entrySize = 42
    /// The most entries a header may list (checked before anything is allocated for them).
    static let maximumEntries = 1_000_000
    /// The largest sealed header read.
    static let maximumSealedSize = 64 << 20

    /// The plaintext header listing `entries`.
    static func encode(_ entries: [PackEntry]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * entrySize)
        for entry in entries {
            bytes.append(entry.kind.rawValue)
            bytes.append(entry.compression)
            LittleEndian.append(entry.length, to: &bytes)
            LittleEndian.append(entry.uncompressedLength, to: &bytes)
            bytes += entry.id.bytes
        }
        return bytes
    }

    /// The entries of a plaintext header.
    ///
    /// - Parameter name: the pack, for messages.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the pack for a size
    ///   that is not a whole number of entries, too many entries, an unknown kind or a compression
    ///   this reader does not read.
    static func decode(_ plain: [UInt8], name: String) throws(SandboxError) -> [PackEntry] {
        guard plain.count % entrySize == 0, plain.count / entrySize <= maximumEntries else {
            throw damaged(
                name,
                "its header is \(plain.count) bytes, not a whole number of \(entrySize)-byte entries up to \(maximumEntries)"
            )
        }
        var entries: [PackEntry] = []
        entries.reserveCapacity(plain.count / entrySize)
        try plain.withBytes { (all) throws(SandboxError) in
            var position = 0
            while position < all.count {
                let entry = UnsafeRawBufferPointer(rebasing: all[position..<(position + entrySize)])
                guard let kind = BlobKind(rawValue: entry[0]) else {
                    throw damaged(name, "entry \(position / entrySize) has the unknown kind \(entry[0])")
                }
                guard PackEntry.reads(compression: entry[1]) else {
                    throw damaged(
                        name,
                        "entry \(position / entrySize) is compressed with method \(entry[1]), which this program does not read"
                    )
                }
                entries.append(
                    PackEntry(
                        kind: kind, compression: entry[1], length: LittleEndian.uint32(entry, at: 2),
                        uncompressedLength: LittleEndian.uint32(entry, at: 6),
                        id: BlobKey(bytes: UnsafeRawBufferPointer(rebasing: entry[10..<42]))))
                position += entrySize
            }
        }
        return entries
    }

    /// The blobs of a whole stored pack, with their offsets, checked against its length: the
    /// trailer and the header fit, and the blobs fill exactly what comes before the header.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the pack.
    static func parse(
        _ pack: [UInt8], cipher: RepositoryCipher, name: String
    ) throws(SandboxError) -> [(entry: PackEntry, offset: Int)] {
        guard pack.count >= 4 else { throw damaged(name, "it is \(pack.count) bytes, too short for a pack's trailer") }
        let headerLength = pack.withUnsafeBytes { Int(LittleEndian.uint32($0, at: pack.count - 4)) }
        guard headerLength <= maximumSealedSize, headerLength <= pack.count - 4 else {
            throw damaged(
                name,
                "its trailer gives a header of \(headerLength) bytes, past the \(pack.count - 4) bytes before it (or the \(maximumSealedSize)-byte limit)"
            )
        }
        let blobsEnd = pack.count - 4 - headerLength
        let plain = try cipher.open(Array(pack[blobsEnd..<(pack.count - 4)]), name: name)
        let entries = try decode(plain, name: name)
        var located: [(entry: PackEntry, offset: Int)] = []
        located.reserveCapacity(entries.count)
        var offset = 0
        for entry in entries {
            guard Int(entry.length) <= blobsEnd - offset else {
                throw damaged(
                    name,
                    "blob \(entry.id.hex) at \(offset) runs \(entry.length) bytes, past the \(blobsEnd) bytes of blobs")
            }
            located.append((entry, offset))
            offset += Int(entry.length)
        }
        guard offset == blobsEnd else {
            throw damaged(name, "its blobs fill \(offset) bytes of the \(blobsEnd) before its header")
        }
        return located
    }

    /// The error for a damaged pack `name`.
    static func damaged(_ name: String, _ problem: String) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "The pack '\(name)' is damaged: \(problem). Check the repository, reading its data, to see which files it affects.",
            path: name)
    }
}

/// Little-endian integers in the repository's binary objects.
enum LittleEndian {
    static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, through: 24, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// The `UInt32` at `offset` (which has 4 bytes after it).
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in (0..<4).reversed() { value = value << 8 | UInt32(bytes[offset + index]) }
        return value
    }
}
