/// The sizes FastCDC cuts between.
///
/// The defaults — 512 KiB minimum, 1 MiB average, 8 MiB maximum — are restic's: an edit re-stores
/// about 1–3 MiB whatever the file's size (a 1 MiB change in the middle of a 1 GiB file touches
/// the chunk it falls in and its neighbours), while a 1 GiB file is still only ~1,000 objects, so
/// the per-object costs of a repository (a name, an `fsync`, an HTTP request on object storage)
/// stay small. Files smaller than the minimum are one chunk.
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

    /// 512 KiB / 1 MiB / 8 MiB.
    public static let standard = ChunkingParameters(
        minimumSize: 512 << 10, averageSize: 1 << 20, maximumSize: 8 << 20)
}
