import Sandbox

/// One item as a PROPFIND sees it: its path and what `statx` said.
package struct ItemSnapshot: Sendable, Equatable {
    package var path: SharePath
    package var attributes: FileAttributes
    package var isCollection: Bool
    /// The length of a file's contents when it is not its size: a protected file's plaintext
    /// length (Data Protection); `nil`: its size.
    package var contentLength: Int64?

    package init(path: SharePath, attributes: FileAttributes, isCollection: Bool, contentLength: Int64? = nil) {
        self.path = path
        self.attributes = attributes
        self.isCollection = isCollection
        self.contentLength = contentLength
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
