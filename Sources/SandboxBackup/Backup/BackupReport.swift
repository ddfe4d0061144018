/// What ``Backup/run(apps:from:to:options:progress:)`` did.
public struct BackupReport: Sendable, Hashable, Codable {
    /// The id of the snapshot written.
    public var snapshot: String
    /// The apps backed up.
    public var apps: [String]
    /// Items backed up (files, folders, symlinks).
    public var files: Int
    /// Bytes read from the containers (files reused from the previous snapshot are not read).
    public var bytesRead: Int64
    /// Bytes of the files backed up.
    public var bytesTotal: Int64
    /// Bytes written to the repository: new data after deduplication, plus the index.
    public var bytesStored: Int64
    /// Things skipped, with the reason (a FIFO, an unreadable previous snapshot…).
    public var warnings: [String]
    /// The items left out (`app: path`): the snapshot is incomplete when there are any.
    public var incomplete: [String]
}
