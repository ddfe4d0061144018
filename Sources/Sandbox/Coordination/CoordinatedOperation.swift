/// A lifecycle operation on an app's containers that the container's live users are told of
/// (`SandboxHome.coordinating(_:of:timeout:_:)`).
public enum CoordinatedOperation: String, Sendable, Codable, CaseIterable {
    /// The data container is replaced by one restored from a backup.
    case restore
    /// The bundle is replaced by a newer one.
    case update
    /// Both containers are removed.
    case uninstall
    /// `tmp/` is emptied, as a reboot does.
    case restart
    /// Files of `tmp/` and `Library/Caches/` are evicted to free storage.
    case purge
    /// The device locks: protected files become unreadable.
    case lock
    /// A snapshot of the data container is taken.
    case backup

    /// Whether the data container the users hold is replaced or removed: a user keeps working
    /// only after opening the container again.
    public var replacesContainer: Bool { self == .restore || self == .uninstall }
}
