/// When a prune rewrites packs that are only partly used (restic's `--max-unused` and
/// `--repack-small`).
public struct RepackPolicy: Sendable, Hashable, Codable {
    /// The most unused bytes left in packs after a prune, as a percentage (0 to under 100) of the
    /// repository's pack bytes after it; `nil`: unlimited, no pack is rewritten to shed unused
    /// bytes (loose blobs are still packed).
    public var maximumUnusedPercent: Double?
    /// Whether packs under 80 % of the target pack size are merged (when there are two or more).
    public var repackSmall: Bool

    /// restic's default: at most 5 % unused; small packs stay.
    public init(maximumUnusedPercent: Double? = 5, repackSmall: Bool = false) {
        self.maximumUnusedPercent = maximumUnusedPercent
        self.repackSmall = repackSmall
    }

    /// Never rewrites a pack to shed unused bytes.
    public static let unlimited = RepackPolicy(maximumUnusedPercent: nil)

    /// The unused bytes tolerated beside `used` bytes: `p / (100 − p) × used`, so that unused
    /// bytes are at most `p` % of what remains.
    func unusedBytesAllowed(used: Int64) -> Int64 {
        guard let percent = maximumUnusedPercent else { return .max }
        guard percent < 100 else { return .max }
        let allowed = max(0, percent) / (100 - max(0, percent)) * Double(used)
        return allowed >= Double(Int64.max) ? .max : Int64(allowed)
    }
}
