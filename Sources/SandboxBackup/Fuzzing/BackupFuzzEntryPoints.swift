import Foundation
import SandboxCore

/// Entry points for the fuzz targets (`Fuzz/`, FUZZING.md) into the repository's binary parsers,
/// which have no public entry of their own. Each only calls the parser the module itself uses; not
/// for apps.
@_spi(Fuzzing) public enum BackupFuzzEntryPoints {
    /// One blob as a pack's header places it.
    public struct PackedBlob: Sendable, Hashable {
        /// 0 data, 1 tree.
        public var kind: UInt8
        /// Where it starts in the pack.
        public var offset: Int
        /// Its stored length.
        public var length: Int
        /// Its plaintext length, as the header says.
        public var uncompressedLength: Int
    }

    /// Reads a snapshot's tree (the JSON array of ``TreeNode``) both ways: the canonical reader a
    /// restore and a backup try first, and Foundation's decoder they fall back to.
    ///
    /// - Returns: each one's nodes, `nil` where it gave up (the canonical reader) or refused.
    public static func tree(_ bytes: [UInt8]) -> (canonical: [TreeNode]?, foundation: [TreeNode]?) {
        let foundation: [TreeNode]?
        do {
            foundation = try JSONDecoder.repository.decode([TreeNode].self, from: Data(bytes))
        } catch {
            foundation = nil
        }
        return (CanonicalTreeReader.read(bytes), foundation)
    }

    /// Trees as a backup writes them, for seeds: two nodes (a file and a symlink, names not
    /// UTF-8, every optional field somewhere), one with extended attributes, and none.
    public static func treeSeeds() -> [String: [UInt8]] {
        let file = TreeNode(
            path: Data("Documents/a\u{1}/b".utf8), kind: .file, mode: 0o644, uid: 501, gid: 20, size: 5,
            modified: Timestamp(seconds: 1_700_000_000, nanoseconds: 5), accessed: nil, extendedAttributes: nil,
            chunks: [String(repeating: "ab", count: 32)], target: nil, hardLinkTo: Data("Documents/c".utf8),
            source: DatabaseCopy.source, inode: 7, device: 2049,
            changed: Timestamp(seconds: -1, nanoseconds: 999_999_999))
        var link = file
        link.kind = .symlink
        link.chunks = nil
        link.hardLinkTo = nil
        link.source = nil
        link.target = Data([0xFF, 0x2F])
        link.accessed = Timestamp(seconds: 0, nanoseconds: 0)
        var attributed = file
        attributed.extendedAttributes = ["user.x": Data([1, 2])]
        return [
            "two-nodes.json": TreeJSON.encode([file, link]),
            "attributes.json": TreeJSON.encode([attributed]),
            "empty.json": TreeJSON.encode([]),
        ]
    }

    /// The tree a backup writes for `nodes`, and the nodes a restore reads back of it.
    public static func treeRoundTrip(_ nodes: [TreeNode]) -> (bytes: [UInt8], readBack: [TreeNode]?) {
        let bytes = TreeJSON.encode(nodes)
        do {
            return (bytes, try TreeJSON.decode(bytes))
        } catch {
            return (bytes, nil)
        }
    }

    /// Reads a whole unencrypted pack (`data/<2 hex>/<id>`) as `check --read-data` does: its
    /// trailer, its header and where each blob is.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming `name`.
    public static func pack(_ bytes: [UInt8], name: String) throws(SandboxError) -> [PackedBlob] {
        try PackHeader.parse(bytes, cipher: .plain, name: name).map {
            PackedBlob(
                kind: $0.entry.kind.rawValue, offset: $0.offset, length: Int($0.entry.length),
                uncompressedLength: Int($0.entry.uncompressedLength))
        }
    }

    /// The bytes of a pack holding `blobs` (each as it is stored, of `kind` 0 or 1), as a backup
    /// writes it unencrypted: for seeds.
    public static func packBytes(_ blobs: [(kind: UInt8, bytes: [UInt8])]) -> [UInt8] {
        var bytes: [UInt8] = []
        var entries: [PackEntry] = []
        for (index, blob) in blobs.enumerated() {
            bytes += blob.bytes
            let id = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 32).withUnsafeBytes {
                BlobKey(bytes: $0)
            }
            entries.append(
                PackEntry(
                    kind: BlobKind(rawValue: blob.kind) ?? .data, compression: 0, length: UInt32(blob.bytes.count),
                    uncompressedLength: UInt32(blob.bytes.count), id: id))
        }
        let header = PackHeader.encode(entries)
        bytes += header
        LittleEndian.append(UInt32(header.count), to: &bytes)
        return bytes
    }

    /// Reads the plaintext of a format-4 index record and writes it again.
    ///
    /// - Returns: the record as this module writes what it read (the same bytes for any record it
    ///   wrote), and how many blobs it lists.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming `name`.
    public static func indexRecord(
        _ bytes: [UInt8], name: String
    ) throws(SandboxError) -> (
        again: [UInt8], blobs: Int
    ) {
        let contents = try IndexFile.decode(bytes, name: name)
        return (IndexFile.encode(contents), contents.blobCount)
    }

    /// A format-4 index record listing one pack of `blobs` blobs and `loose` loose blobs: for seeds.
    public static func indexRecordBytes(blobs: Int, loose: Int) -> [UInt8] {
        func key(_ value: Int) -> BlobKey {
            [UInt8](repeating: UInt8(truncatingIfNeeded: value), count: 32).withUnsafeBytes { BlobKey(bytes: $0) }
        }
        var contents = IndexContents()
        contents.packs.append(
            IndexedPack(
                id: key(255),
                blobs: (0..<blobs).map {
                    IndexedBlob(
                        entry: PackEntry(
                            kind: $0 % 2 == 0 ? .data : .tree, compression: 0, length: 100, uncompressedLength: 72,
                            id: key($0)),
                        offset: UInt32($0 * 100))
                }))
        contents.loose = (0..<loose).map { (key(100 + $0), UInt32($0)) }
        return IndexFile.encode(contents)
    }
}
