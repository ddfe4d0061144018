/// The sizes FastCDC cuts between.
///
/// The defaults — 256 KiB minimum, 512 KiB average (about 650 KiB in practice, with normalized
/// chunking), 8 MiB maximum — are half of restic's minimum and average: measured on random data, a
/// 1 MiB change in the middle of a large file re-stores at most ~3 MiB (the chunks it touches and
/// those before the cuts fall into step again), where restic's 512 KiB / 1 MiB re-stored up to
/// 4.8 MiB, too close to the 5 MiB budget. A 1 GiB file is still only ~1,600 objects, so the
/// per-object costs of a repository (a name, an `fsync`, an HTTP request on object storage) stay
/// small. Files smaller than the minimum are one chunk.
public struct ChunkingParameters: Sendable, Hashable, Codable {
    /// No chunk is cut before this many bytes (except a file's last).
    public var minimumSize: Int
    /// The size chunks are normalized towards; a power of two.
    public var averageSize: Int
    /// Every chunk is cut at this size at the latest.
    public var maximumSize: Int

    /// The sizes, checked: `0 < minimum <= average <= maximum`, `average` a power of two ≥ 256.
    public init(minimumSize: Int, averageSize: Int, maximumSize: Int) {
        precondition(
            minimumSize > 0 && minimumSize <= averageSize && averageSize <= maximumSize && averageSize >= 256
                && averageSize.nonzeroBitCount == 1,
            "chunking sizes must satisfy 0 < minimum <= average <= maximum, average a power of two >= 256")
        self.minimumSize = minimumSize
        self.averageSize = averageSize
        self.maximumSize = maximumSize
    }

    /// 256 KiB / 512 KiB / 8 MiB.
    public static let standard = ChunkingParameters(
        minimumSize: 256 << 10, averageSize: 512 << 10, maximumSize: 8 << 20)
}
