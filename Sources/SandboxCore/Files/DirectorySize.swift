/// The total size of a directory tree.
public struct DirectorySize: Sendable, Hashable, Codable {
    /// Sum of the logical sizes of files and symlinks (what `du -b --apparent-size` counts for them).
    public var logicalBytes: Int64 = 0
    /// Storage allocated to every item including directories (`st_blocks × 512`, what `du -s` counts).
    public var allocatedBytes: Int64 = 0
    /// Regular files, symlinks and other non-directories.
    public var fileCount: Int = 0
    /// Directories beneath the root (the root itself not counted).
    public var directoryCount: Int = 0

    /// An empty tree: every count zero.
    public init() {}

    /// The sizes of two trees together, count by count.
    public static func + (lhs: DirectorySize, rhs: DirectorySize) -> DirectorySize {
        var sum = lhs
        sum.logicalBytes += rhs.logicalBytes
        sum.allocatedBytes += rhs.allocatedBytes
        sum.fileCount += rhs.fileCount
        sum.directoryCount += rhs.directoryCount
        return sum
    }
}
