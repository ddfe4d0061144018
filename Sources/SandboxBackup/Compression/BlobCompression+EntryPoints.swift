import SandboxCore

/// ``BlobCompression`` for the `zstd-blob` fuzz target (`Fuzz/`, FUZZING.md) and the backup
/// benchmark's `--compression` mode (`Benchmarks/`), whose packages see only public API: the same
/// code, with its contexts reused from call to call as a backup's writer thread reuses them. Not
/// for apps.
@_spi(Fuzzing) @_spi(Benchmarking) public struct BlobCompressionEntryPoints: ~Copyable {
    private var compression = BlobCompression()

    /// A value with its own zstd contexts.
    public init() {}

    /// ``BlobCompression/minimumSavingDivisor``: a compressed blob is at most its length minus
    /// its length divided by this.
    public static var minimumSavingDivisor: Int { BlobCompression.minimumSavingDivisor }

    /// ``BlobCompression/maximumLength``.
    public static var maximumLength: Int { BlobCompression.maximumLength }

    /// ``BlobCompression/compress(_:)``.
    public mutating func compress(_ plain: UnsafeRawBufferPointer) -> [UInt8]? { compression.compress(plain) }

    /// ``BlobCompression/decompress(_:uncompressedLength:blob:maximumLength:)`` with the default maximum.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming `blob` for any frame
    ///   that is not exactly one zstd frame of `uncompressedLength` bytes;
    ///   ``SandboxCore/SandboxError/Code/unknown`` when zstd cannot allocate its context.
    public mutating func decompress(
        _ stored: UnsafeRawBufferPointer, uncompressedLength: Int, blob: String
    ) throws(SandboxError) -> [UInt8] {
        try compression.decompress(stored, uncompressedLength: uncompressedLength, blob: blob)
    }
}
