import Foundation
import Sandbox
@_spi(Fuzzing) import SandboxBackup

extension FuzzTarget {
    /// A pack (`data/<2 hex>/<id>`, repository format 4) read as `check --read-data` reads it
    /// (issue 30): its trailer, its header, where each blob is. Refusals `repository-damaged` only,
    /// naming the pack; a pack that reads has blobs in order, each within the bytes before the
    /// header, filling them exactly, of a known kind.
    static let backupPack = FuzzTarget(
        name: "backup-pack",
        run: { bytes in
            let name = "data/ab/pack"
            let blobs: [BackupFuzzEntryPoints.PackedBlob]
            do throws(SandboxError) {
                blobs = try BackupFuzzEntryPoints.pack(bytes, name: name)
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["repository-damaged"], message: error.message, for: "the pack")
                invariant(error.message.contains(name), "the refusal does not name '\(name)': \(error.message)")
                return
            }
            var offset = 0
            for blob in blobs {
                invariant(blob.offset == offset, "a blob at \(blob.offset) where \(offset) was expected")
                invariant(blob.kind <= 1, "a blob of kind \(blob.kind)")
                offset += blob.length
            }
            invariant(offset + blobs.count * 42 + 4 == bytes.count, "the blobs and header do not fill the pack")
        },
        seeds: {
            [
                "two-blobs.pack": BackupFuzzEntryPoints.packBytes([(0, Array("hello".utf8)), (1, Array("[]".utf8))]),
                "empty.pack": BackupFuzzEntryPoints.packBytes([]),
            ]
        })

    /// The plaintext of an index record (`index/<id>`, format 4, "SBI4"). Refusals
    /// `repository-damaged` only, naming the record; a record that reads is written again as the
    /// same bytes.
    static let backupIndex = FuzzTarget(
        name: "backup-index",
        run: { bytes in
            let name = "index/fuzz"
            do throws(SandboxError) {
                let (again, _) = try BackupFuzzEntryPoints.indexRecord(bytes, name: name)
                invariant(again == bytes, "a record read and written again differs")
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["repository-damaged"], message: error.message, for: "the index")
                invariant(error.message.contains(name), "the refusal does not name '\(name)': \(error.message)")
            }
        },
        seeds: {
            [
                "one-pack.index": BackupFuzzEntryPoints.indexRecordBytes(blobs: 3, loose: 2),
                "empty.index": BackupFuzzEntryPoints.indexRecordBytes(blobs: 0, loose: 0),
            ]
        })
}
