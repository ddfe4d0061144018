import CZstd
import SandboxCore

extension BlobCompression {
    /// The plaintext of a blob stored compressed: `stored` must be exactly one zstd frame, with no
    /// dictionary, that declares `uncompressedLength` bytes (what the pack's header records) and
    /// inflates to exactly that.
    ///
    /// The input is hostile: nothing the frame says decides an allocation. `uncompressedLength` is
    /// checked against `maximumLength` before anything is allocated, the output buffer is
    /// `uncompressedLength` bytes and zstd writes nowhere else, so a frame that would inflate
    /// further (a "zip bomb") stops at that bound with an error.
    ///
    /// - Parameters:
    ///   - stored: the blob's bytes as stored (after the repository's cipher opened them).
    ///   - uncompressedLength: the blob's length before compression, from the pack's header.
    ///   - blob: the blob's id, named by the errors.
    ///   - maximumLength: the largest `uncompressedLength` accepted; ``maximumLength`` by default.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the blob and what is
    ///   wrong: a length out of bounds, bytes that are not a zstd frame, a skippable frame, a frame
    ///   that does not declare its length or declares another, one that needs a dictionary, a
    ///   truncated frame, a second frame or other bytes after it, or data zstd cannot decode
    ///   (with zstd's reason); ``SandboxCore/SandboxError/Code/unknown`` when zstd cannot allocate
    ///   its context.
    package mutating func decompress(
        _ stored: UnsafeRawBufferPointer, uncompressedLength: Int, blob: String,
        maximumLength: Int = BlobCompression.maximumLength
    ) throws(SandboxError) -> [UInt8] {
        guard (0...maximumLength).contains(uncompressedLength) else {
            throw Self.damaged(
                blob,
                "its pack gives it an uncompressed length of \(uncompressedLength) bytes, outside the 0…\(maximumLength) a blob may have"
            )
        }
        let frameLength = try Self.checkFrame(stored, uncompressedLength: uncompressedLength, blob: blob)
        if decompressor == nil { decompressor = ZSTD_createDCtx() }
        guard let decompressor, let source = stored.baseAddress else {
            throw SandboxError(
                .unknown,
                "zstd could not allocate its decompression context to read the blob '\(blob)': the process is out of memory.",
                path: blob)
        }
        var result = 0
        let plain = [UInt8](unsafeUninitializedCapacity: uncompressedLength) { buffer, count in
            result = ZSTD_decompressDCtx(decompressor, buffer.baseAddress, uncompressedLength, source, frameLength)
            count = ZSTD_isError(result) == 0 ? min(result, uncompressedLength) : 0
        }
        if ZSTD_isError(result) != 0 {
            throw Self.damaged(blob, "zstd cannot decode its frame (\(Self.reason(result)))")
        }
        guard result == uncompressedLength else {
            throw Self.damaged(blob, "its frame inflates to \(result) bytes, not the \(uncompressedLength) it declares")
        }
        return plain
    }

    /// Checks, before anything is allocated, that `stored` is exactly one zstd frame with no
    /// dictionary that declares `uncompressedLength` bytes; returns the frame's length.
    private static func checkFrame(
        _ stored: UnsafeRawBufferPointer, uncompressedLength: Int, blob: String
    ) throws(SandboxError) -> Int {
        guard let source = stored.baseAddress, stored.count >= 4 else {
            throw damaged(blob, "its \(stored.count) stored bytes are too few for a zstd frame")
        }
        switch FrameKind(magic: stored) {
        case .zstd: break
        case .skippable:
            throw damaged(blob, "it is a skippable zstd frame, which holds no data, where a blob is one zstd frame")
        case .other: throw damaged(blob, "it does not start with a zstd frame (its magic number is wrong)")
        }
        let declared = ZSTD_getFrameContentSize(source, stored.count)
        if declared == contentSizeError {
            throw damaged(blob, "its zstd frame header is damaged or truncated")
        }
        guard declared != contentSizeUnknown else {
            throw damaged(blob, "its zstd frame does not declare its uncompressed length")
        }
        guard declared == UInt64(uncompressedLength) else {
            throw damaged(
                blob, "its zstd frame declares \(declared) bytes where its pack gives \(uncompressedLength)")
        }
        let dictionary = ZSTD_getDictID_fromFrame(source, stored.count)
        guard dictionary == 0 else {
            throw damaged(blob, "its zstd frame needs dictionary \(dictionary), and blobs are compressed without one")
        }
        let frameLength = ZSTD_findFrameCompressedSize(source, stored.count)
        guard ZSTD_isError(frameLength) == 0 else {
            throw damaged(blob, "its zstd frame is truncated or its blocks are damaged (\(reason(frameLength)))")
        }
        guard frameLength == stored.count else {
            let rest = UnsafeRawBufferPointer(rebasing: stored[frameLength...])
            if rest.count >= 4, FrameKind(magic: rest) != .other {
                throw damaged(blob, "another zstd frame follows its frame, where a blob is one frame")
            }
            throw damaged(blob, "\(rest.count) bytes that are not part of its zstd frame follow it")
        }
        return frameLength
    }

    /// What a frame's first four bytes (little-endian) make it.
    private enum FrameKind {
        case zstd, skippable, other

        init(magic bytes: UnsafeRawBufferPointer) {
            let magic = UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self))
            if magic == UInt32(ZSTD_MAGICNUMBER) {
                self = .zstd
            } else if magic & UInt32(ZSTD_MAGIC_SKIPPABLE_MASK) == UInt32(ZSTD_MAGIC_SKIPPABLE_START) {
                self = .skippable
            } else {
                self = .other
            }
        }
    }

    /// `ZSTD_CONTENTSIZE_ERROR` and `ZSTD_CONTENTSIZE_UNKNOWN` (`0ULL - 2`, `0ULL - 1`).
    private static let contentSizeError = UInt64.max - 1
    private static let contentSizeUnknown = UInt64.max

    /// zstd's name for the error `code`.
    private static func reason(_ code: Int) -> String {
        ZSTD_getErrorName(code).map { String(cString: $0) } ?? "error \(code)"
    }

    /// The refusal of the blob `blob`, `what` saying why.
    private static func damaged(_ blob: String, _ what: String) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "The compressed blob '\(blob)' cannot be read: \(what). The repository is damaged; check it, reading its data, to see which snapshots this affects.",
            path: blob)
    }
}
