import CZstd
import SandboxCore

/// zstd compression of a repository's blobs, one blob at a time (issue 30).
///
/// Each blob is compressed on its own, so deduplication still works: its id stays the hash of its
/// plaintext, and the pack that holds it records whether it is stored compressed and its length
/// before compression. Compression runs at level 3, zstd's default and restic's "auto"; a blob
/// that would not shrink by at least 1/16 is stored as it is.
///
/// A value owns its zstd contexts, which are not thread-safe: every thread that compresses or
/// decompresses (each of a backup's writer threads, a restore's reader) makes its own and keeps
/// it for its blobs. The value cannot be copied, only moved to another thread, and every method is
/// `mutating`, so two threads never use one context at once.
package struct BlobCompression: ~Copyable, @unchecked Sendable {
    /// The zstd level: 3, zstd's default (restic's "auto").
    package static let level: Int32 = 3

    /// A blob is stored compressed only when that saves at least its length divided by this.
    package static let minimumSavingDivisor = 16

    /// The largest uncompressed length ``decompress(_:uncompressedLength:blob:maximumLength:)``
    /// accepts by default: the largest chunk a repository may cut
    /// (``ChunkingParameters/legalMaximumSizes``, 32 MiB), plus 1 MiB of margin.
    package static let maximumLength = ChunkingParameters.legalMaximumSizes.upperBound + (1 << 20)

    /// The compression context (`ZSTD_CCtx`), made at the first compression.
    private var compressor: OpaquePointer?
    /// The decompression context (`ZSTD_DCtx`), made at the first decompression.
    var decompressor: OpaquePointer?

    /// A value with no context yet: each is made when first needed, then reused.
    package init() {}

    deinit {
        ZSTD_freeCCtx(compressor)
        ZSTD_freeDCtx(decompressor)
    }

    /// `plain` as one zstd frame at ``level`` that declares its length, without a checksum (the
    /// repository authenticates what it stores) — or `nil` when the frame would not be at least
    /// 1/16 smaller than `plain` (random, already compressed or encrypted data, or a blob of a few
    /// bytes): the blob is then stored as it is. Never fails: whatever zstd cannot do (even
    /// allocate its context) also gives `nil`, and storing the blob raw is always correct.
    ///
    /// The frame is written into a buffer of the largest length it may have, so zstd stops as soon
    /// as it cannot save enough. On data that does not compress zstd itself falls back to raw
    /// blocks at ~3 GB/s (BENCHMARKS.md), which makes a cheaper first guess not worth its errors.
    package mutating func compress(_ plain: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let source = plain.baseAddress, !plain.isEmpty else { return nil }
        if compressor == nil { compressor = Self.makeCompressor() }
        guard let compressor else { return nil }
        let capacity = plain.count - plain.count / Self.minimumSavingDivisor
        var fits = false
        let frame = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            let written = ZSTD_compress2(compressor, buffer.baseAddress, capacity, source, plain.count)
            fits = ZSTD_isError(written) == 0
            count = fits ? written : 0
        }
        return fits ? frame : nil
    }

    /// A compression context set to ``level``, with the content size in each frame and no
    /// checksum; `nil` when zstd cannot allocate or set it.
    private static func makeCompressor() -> OpaquePointer? {
        guard let context = ZSTD_createCCtx() else { return nil }
        let settings: [(ZSTD_cParameter, Int32)] = [
            (ZSTD_c_compressionLevel, level), (ZSTD_c_contentSizeFlag, 1), (ZSTD_c_checksumFlag, 0),
        ]
        for (parameter, value) in settings where ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value)) != 0 {
            ZSTD_freeCCtx(context)
            return nil
        }
        return context
    }
}
