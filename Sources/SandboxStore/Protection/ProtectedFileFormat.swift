import Crypto
import Foundation

/// The bytes of a protected file: a header, then the contents in AES-256-GCM sealed segments.
///
/// Header (big-endian): `SBPROT`, format version (1), class number, segment size (4 bytes), a
/// 7-byte random nonce prefix, a zero byte, the wrapped file key's length (2 bytes) and the wrapped
/// file key. The wrapped key is authenticated with the header's fixed part, so neither the class nor
/// the segment size can be changed.
///
/// Segment `i` holds bytes `i × segmentSize ..< (i + 1) × segmentSize` sealed with the file key,
/// nonce = prefix ‖ `i` (4 bytes) ‖ final flag (1 byte), and the whole header as additional data;
/// each is followed by its 16-byte tag. Only the last segment has the final flag (an empty file is
/// one empty final segment), so truncation at a segment boundary, reordering, and splicing segments
/// of another file are all detected, and segment `i` can be read alone.
enum ProtectedFileFormat {
    static let magic: [UInt8] = Array("SBPROT".utf8)
    static let version: UInt8 = 1
    static let defaultSegmentSize = 64 << 10
    static let tagSize = 16
    static let fixedHeaderSize = 22
    static let maximumWrappedKeySize = 512
    static let maximumHeaderSize = fixedHeaderSize + maximumWrappedKeySize

    /// A parsed header.
    struct Header {
        var protection: ProtectionClass
        var segmentSize: Int
        var noncePrefix: [UInt8]
        var wrappedKey: [UInt8]
        /// The header as stored: the additional data of every segment.
        var bytes: [UInt8]
        /// The fixed part: the additional data of the wrapped key.
        var fixedPart: ArraySlice<UInt8> { bytes[0..<ProtectedFileFormat.fixedHeaderSize] }
    }

    /// Whether `bytes` start like a protected file.
    static func isProtected(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: magic)
    }

    /// The fixed part of a header: what the wrapped key is sealed with.
    static func fixedHeader(
        protection: ProtectionClass, segmentSize: Int, noncePrefix: [UInt8], wrappedKeySize: Int
    ) -> [UInt8] {
        var bytes = magic + [version, protection.code]
        bytes += withUnsafeBytes(of: UInt32(segmentSize).bigEndian, Array.init)
        bytes += noncePrefix + [0]
        bytes += withUnsafeBytes(of: UInt16(wrappedKeySize).bigEndian, Array.init)
        return bytes
    }

    /// The header of a protected file.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged or truncated header,
    ///   ``SandboxCore/SandboxError/Code/newerVersion`` for a format this version does not know.
    static func header(of file: [UInt8], path: String) throws(SandboxError) -> Header {
        guard file.count >= fixedHeaderSize, isProtected(file) else {
            throw corrupt(path, "its header is truncated or not a protected file's")
        }
        guard file[6] == version else {
            throw SandboxError(
                .newerVersion,
                "The protected file '\(path)' has format version \(file[6]); this version reads only \(version). Read it with a newer version.",
                path: path)
        }
        guard let protection = ProtectionClass(code: file[7]) else {
            throw corrupt(path, "its header names protection class \(file[7]), which does not exist")
        }
        let segmentSize = file[8..<12].reduce(0) { $0 << 8 | Int($1) }
        let keySize = file[20..<22].reduce(0) { $0 << 8 | Int($1) }
        guard (4096...(16 << 20)).contains(segmentSize), keySize <= maximumWrappedKeySize,
            file[19] == 0, file.count >= fixedHeaderSize + keySize
        else {
            throw corrupt(path, "its header is damaged (segment size \(segmentSize), wrapped key \(keySize) bytes)")
        }
        let end = fixedHeaderSize + keySize
        return Header(
            protection: protection, segmentSize: segmentSize, noncePrefix: Array(file[12..<19]),
            wrappedKey: Array(file[fixedHeaderSize..<end]), bytes: Array(file[0..<end]))
    }

    /// The nonce of segment `index`: the file's 7-byte `prefix`, `index`, the final flag.
    static func segmentNonce(
        prefix: some Collection<UInt8>, index: Int, final: Bool
    ) throws(SandboxError) -> AES.GCM.Nonce {
        guard let index = UInt32(exactly: index) else {
            throw SandboxError(.tooLarge, "A protected file may have at most 2^32 segments.")
        }
        let bytes = Array(prefix) + withUnsafeBytes(of: index.bigEndian, Array.init) + [final ? 1 : 0]
        do {
            return try AES.GCM.Nonce(data: bytes)
        } catch {
            throw SandboxError(.encodingFailed, "A segment nonce could not be made: \(error).")
        }
    }

    static func corrupt(_ path: String, _ reason: String) -> SandboxError {
        SandboxError(
            .corrupt,
            "The protected file '\(path)' cannot be opened: \(reason). No data was returned; restore the file from a backup.",
            path: path)
    }
}
