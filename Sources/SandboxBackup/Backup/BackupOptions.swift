/// How a backup treats the apps it reads.
public struct BackupOptions: Sendable, Hashable {
    /// How long the backup waits for a lock an app holds on an item it reads — its preferences'
    /// lock, a write or checkpoint of one of its databases — before it leaves the item out (with a
    /// warning; the snapshot is marked incomplete). An app can hold a lock for ever: the backup of
    /// every other app must not wait on it.
    public var lockTimeout: Duration

    /// The size packs are flushed at (``PackAssembler/targetSize`` unless a test makes many small
    /// packs out of little data).
    package var packSize = PackAssembler.targetSize

    /// Options waiting `lockTimeout` for an app's lock (5 s by default).
    public init(lockTimeout: Duration = .seconds(5)) {
        self.lockTimeout = lockTimeout
    }

    /// Waits 5 s for a lock.
    public static let standard = BackupOptions()
}
