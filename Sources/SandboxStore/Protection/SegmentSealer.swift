import Crypto
import Foundation

/// Seals the segments of one protected file (see ``ProtectedFileFormat``) under its file key,
/// each straight into a buffer the caller owns.
struct SegmentSealer: Sendable {
    /// The whole header: the additional data of every segment.
    let header: [UInt8]
    let fileKey: SymmetricKey
    let segmentSize: Int

    /// The bytes a full segment takes on disk: its ciphertext and its tag.
    var sealedSegmentSize: Int { segmentSize + ProtectedFileFormat.tagSize }

    /// The number of segments of a file of `plaintextSize` bytes (an empty file has one).
    func segmentCount(forPlaintextSize plaintextSize: Int) -> Int {
        max(1, (plaintextSize + segmentSize - 1) / segmentSize)
    }

    /// Seals `plaintext` (at most one segment) as segment `index`, the file's last if `final`, into
    /// `output`: its ciphertext, then its tag.
    ///
    /// - Returns: the bytes written to `output`: `plaintext.count` plus the tag.
    /// - Throws: ``SandboxCore/SandboxError/Code/encodingFailed`` if AES-GCM refuses, ``SandboxCore/SandboxError/Code/tooLarge``
    ///   past 2^32 segments.
    func seal(
        _ plaintext: UnsafeRawBufferPointer, index: Int, final: Bool, into output: UnsafeMutableRawBufferPointer
    ) throws(SandboxError) -> Int {
        let nonce = try ProtectedFileFormat.segmentNonce(prefix: header[12..<19], index: index, final: final)
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: fileKey, nonce: nonce, authenticating: header)
        } catch {
            throw SandboxError(.encodingFailed, "AES-GCM could not seal a segment: \(error).")
        }
        // swift-crypto returns the box as one buffer (nonce, ciphertext, tag): one copy out of it.
        box.ciphertext.copyBytes(to: output)
        box.tag.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: output[plaintext.count...]))
        return plaintext.count + ProtectedFileFormat.tagSize
    }
}
