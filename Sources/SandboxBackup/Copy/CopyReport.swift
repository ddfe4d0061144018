/// What a copy of snapshots between repositories did.
public struct CopyReport: Sendable, Hashable {
    /// A snapshot copied: its id in the source and the id of its copy.
    public struct Copied: Sendable, Hashable {
        /// The snapshot's id in the source repository.
        public var source: String
        /// The id of the copy in the destination repository.
        public var destination: String
    }

    /// The snapshots copied, oldest first.
    public var copied: [Copied] = []
    /// The source snapshots the destination already held a copy of (nothing of them was read).
    public var alreadyCopied: [String] = []
    /// Blobs read from the source and handed to the destination's writers (those the destination
    /// held already were not stored again).
    public var blobsRead = 0
    /// Bytes written to the destination: packs and index records.
    public var bytesWritten: Int64 = 0
}
