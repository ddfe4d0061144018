/// The sizes FastCDC cuts between.
///
/// The defaults — 256 KiB minimum, 512 KiB average (about 650 KiB in practice, with normalized
/// chunking), 8 MiB maximum — are half of restic's minimum and average: measured on random data, a
/// 1 MiB change in the middle of a large file re-stores at most ~3 MiB (the chunks it touches and
/// those before the cuts fall into step again), where restic's 512 KiB / 1 MiB re-stored up to
/// 4.8 MiB, too close to the 5 MiB budget. A 1 GiB file is still only ~1,600 objects, so the
/// per-object costs of a repository (a name, an `fsync`, an HTTP request on object storage) stay
/// small. Files smaller than the minimum are one chunk.
///
/// A repository's `config` carries them, so they are checked against ``legalMinimumSizes``,
/// ``legalAverageSizes`` and ``legalMaximumSizes`` whenever one is read: a chunk larger than a
/// restore can read back, or so small that a backup would store millions of objects, is refused
/// before anything is written.
public struct ChunkingParameters: Sendable, Hashable, Codable {
    /// No chunk is cut before this many bytes (except a file's last).
    public var minimumSize: Int
    /// The size chunks are normalized towards; a power of two.
    public var averageSize: Int
    /// Every chunk is cut at this size at the latest.
    public var maximumSize: Int

    /// The legal minimum sizes: 1 KiB up to the average (smaller ones let a hostile config make a
    /// backup store a file as millions of tiny objects).
    public static let legalMinimumSizes = (1 << 10)...(16 << 20)
    /// The legal average sizes: powers of two from 4 KiB to 16 MiB.
    public static let legalAverageSizes = (4 << 10)...(16 << 20)
    /// The legal maximum sizes: up to 32 MiB. A chunk is one object, read whole into memory by a
    /// restore (``LocalRepositoryStorage`` reads at most 64 MiB an object) and buffered by every
    /// backup chunker, so a larger maximum makes backups that no restore can read.
    public static let legalMaximumSizes = (4 << 10)...(32 << 20)

    /// The sizes, checked: see ``violation``.
    public init(minimumSize: Int, averageSize: Int, maximumSize: Int) {
        self.minimumSize = minimumSize
        self.averageSize = averageSize
        self.maximumSize = maximumSize
        if let violation { preconditionFailure("chunking sizes: \(violation)") }
    }

    /// What is wrong with the sizes, in a sentence naming the field, its value and the legal range
    /// — or `nil` when `minimum <= average <= maximum`, each in its legal range and the average a
    /// power of two.
    public var violation: String? {
        func outside(_ field: String, _ value: Int, _ range: ClosedRange<Int>, _ also: String = "") -> String {
            "chunking.\(field) is \(value), outside the legal \(range.lowerBound)…\(range.upperBound)\(also)"
        }
        guard Self.legalAverageSizes.contains(averageSize), averageSize.nonzeroBitCount == 1 else {
            return outside("averageSize", averageSize, Self.legalAverageSizes, " (a power of two)")
        }
        let minimums = Self.legalMinimumSizes.lowerBound...averageSize
        guard minimums.contains(minimumSize) else {
            return outside("minimumSize", minimumSize, minimums, " (at least 1 KiB, at most chunking.averageSize)")
        }
        let maximums = averageSize...Self.legalMaximumSizes.upperBound
        guard maximums.contains(maximumSize) else {
            return outside("maximumSize", maximumSize, maximums, " (at least chunking.averageSize, at most 32 MiB)")
        }
        return nil
    }

    /// 256 KiB / 512 KiB / 8 MiB.
    public static let standard = ChunkingParameters(
        minimumSize: 256 << 10, averageSize: 512 << 10, maximumSize: 8 << 20)
}
