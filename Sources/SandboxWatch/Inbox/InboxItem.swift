/// A document claimed from the Inbox and handed to the app.
public struct InboxItem: Sendable, Hashable {
    /// The item's name in the Inbox (as delivered, e.g. `report 2.pdf`), byte for byte.
    public let fileName: FileName
    /// ``fileName`` as text: exact when it is valid UTF-8, else its escaped display (see
    /// ``/SandboxCore/FileName/description``), which names no item. Use ``fileName`` to name a destination.
    public var name: String { fileName.string ?? fileName.description }
    /// Where the item is while it is handled: inside the Inbox's hidden processing folder. Read it
    /// through the container's root.
    public let path: ContainerPath
    /// Stable for the item across renames and crashes (its device and inode), for handlers that must
    /// recognise an item they saw before a crash.
    public let identifier: String

    /// What to do with an item once the handler returns.
    public enum Disposition: Sendable, Hashable {
        /// Rename it to this path in the container (which must not exist): the atomic end of handling.
        case move(to: ContainerPath)
        /// Remove it: the handler has taken what it needed.
        case delete
    }
}

/// What a processing pass did.
public struct InboxReport: Sendable {
    /// The items whose disposition was applied, in order.
    public var handled: [InboxItem] = []
    /// Items left claimed because their handler threw or their disposition failed; they are offered
    /// again at the next launch.
    public var failures: [Failure] = []

    /// An item whose handler or disposition failed, and why.
    public struct Failure: Sendable {
        /// The item, still claimed in the processing folder.
        public var item: InboxItem
        /// What the handler threw, or the ``/SandboxCore/SandboxError`` of its disposition.
        public var error: any Error
    }

    /// An empty report: nothing handled, nothing failed.
    public init() {}
}
