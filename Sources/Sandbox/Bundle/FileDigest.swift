import Crypto
import SandboxCore

/// SHA-256 of files, streamed: a file is never held in memory whole, and one buffer serves every
/// file hashed through the same `FileDigest`.
final class FileDigest {
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: IOEngine.defaultChunkSize, alignment: 16)

    deinit { buffer.deallocate() }

    /// The digest of the file at `path` and the number of bytes read.
    func sha256(of path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> (hex: String, size: Int64) {
        var hasher = SHA256()
        let size = try root.forEachChunk(of: path, using: buffer) { chunk in hasher.update(bufferPointer: chunk) }
        return (Hex.string(hasher.finalize()), size)
    }
}
