import Crypto
import SandboxCore

/// The SHA-256 of a file, streamed: the file is never held in memory whole.
enum FileDigest {
    /// The digest and the number of bytes read.
    static func sha256(of path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> (hex: String, size: Int64) {
        var hasher = SHA256()
        let size = try root.readChunks(of: path) { chunk in hasher.update(bufferPointer: chunk) }
        return (hasher.finalize().hexString, size)
    }
}
