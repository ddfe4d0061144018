import Sandbox

/// One item as a PROPFIND sees it: its path and what `statx` said.
package struct ItemSnapshot: Sendable, Equatable {
    package var path: SharePath
    package var attributes: FileAttributes
    package var isCollection: Bool

    package init(path: SharePath, attributes: FileAttributes, isCollection: Bool) {
        self.path = path
        self.attributes = attributes
        self.isCollection = isCollection
    }
}

/// What live properties need beyond the item: its locks, the time, and the volume.
package struct PropertyContext: Sendable {
    /// The live locks covering the item, for `DAV:lockdiscovery`.
    package var locks: [ActiveLock]
    /// The lock manager's time now, for the locks' timeouts.
    package var now: Duration
    /// The shared folder's volume, for the quota properties; `nil` leaves them undefined.
    package var volume: VolumeValues?

    package init(locks: [ActiveLock], now: Duration, volume: VolumeValues?) {
        self.locks = locks
        self.now = now
        self.volume = volume
    }
}
