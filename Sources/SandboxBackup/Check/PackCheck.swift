import Crypto
import SandboxCore

/// Reads one pack whole (`check --read-data`): its name against its bytes, its header (parsed as
/// hostile input) against what the index says, and every blob opened, inflated when compressed
/// and re-hashed.
enum PackCheck {
    /// What reading a pack found.
    struct Finding {
        /// Problems of the pack as a whole, each a sentence naming it.
        var problems: [String] = []
        /// Blobs that cannot be read back, each with why.
        var damaged: [(id: String, reason: String)] = []
    }

    /// Reads the pack `pack` lists and checks it.
    ///
    /// - Throws: the storage's errors other than a missing pack.
    static func verify(_ pack: IndexedPack, in repository: Repository) throws(SandboxError) -> Finding {
        let name = ObjectName(.data, pack.id.hex)
        var finding = Finding()
        let bytes: [UInt8]
        do {
            bytes = try repository.storage.get(name)
        } catch  where error.code == .notFound {
            finding.problems.append("The pack '\(name)' an index lists is missing.")
            finding.damaged = pack.blobs.map { ($0.entry.id.hex, "its pack '\(name)' is missing.") }
            return finding
        }
        if Hex.string(SHA256.hash(data: bytes)) != pack.id.hex {
            finding.problems.append("The pack '\(name)' does not match its name: it is truncated or damaged.")
        }
        let located: [(entry: PackEntry, offset: Int)]
        do {
            located = try PackHeader.parse(bytes, cipher: repository.cipher, name: name.description)
        } catch {
            finding.problems.append(error.message)
            finding.damaged = pack.blobs.map { ($0.entry.id.hex, "the header of its pack '\(name)' cannot be read.") }
            return finding
        }
        let listed = pack.blobs.sorted { $0.offset < $1.offset }
        let inHeader = located.map { IndexedBlob(entry: $0.entry, offset: UInt32(clamping: $0.offset)) }
        if listed != inHeader {
            finding.problems.append(
                "The pack '\(name)' does not hold what the index lists: its header has \(inHeader.count) blob(s), the index \(listed.count), at other places or of other lengths."
            )
            let held = Set(inHeader)
            for blob in listed where !held.contains(blob) {
                finding.damaged.append(
                    (blob.entry.id.hex, "the index places it in '\(name)' where the pack does not hold it."))
            }
        }
        for (entry, offset) in located {
            let id = entry.id.hex
            let stored = Array(bytes[offset..<(offset + Int(entry.length))])
            do {
                _ = try repository.unpack(
                    stored, id: id, compression: entry.compression, uncompressedLength: Int(entry.uncompressedLength),
                    pack: name)
            } catch {
                finding.damaged.append((id, error.message))
            }
        }
        return finding
    }
}
