/// One item of a directory listing.
public struct DirectoryEntry: Sendable, Hashable {
    /// The item's path within the container; its last name is byte-exact as listed.
    public var path: ContainerPath
    /// The item's type: from `d_type`, or from `statx` where the file system leaves it unknown.
    public var type: ItemType
    /// Resource values, when they were asked for while enumerating.
    public var attributes: FileAttributes?
    /// Whether this directory holds items nested too deeply to be named by a ``ContainerPath``,
    /// which the enumeration therefore did not visit (only when it was asked to stop there rather
    /// than fail). Measure it with ``ConfinedRoot/recursiveSize(at:)`` and remove it with
    /// ``ConfinedRoot/removeItem(at:recursively:)``: neither needs paths.
    public var contentsBeyondPathLimit: Bool

    /// An entry as an enumeration reports it; for tests and for layers that list items themselves.
    public init(
        path: ContainerPath, type: ItemType, attributes: FileAttributes? = nil, contentsBeyondPathLimit: Bool = false
    ) {
        self.path = path
        self.type = type
        self.attributes = attributes
        self.contentsBeyondPathLimit = contentsBeyondPathLimit
    }

    /// The item's name within its directory, byte for byte.
    public var fileName: FileName { path.lastName ?? FileName.parentReference }

    /// The item's name as text: exact when it is valid UTF-8, else its escaped display (see
    /// ``FileName/description``), which names no item. Use ``fileName`` or ``path`` to act on it.
    public var name: String { fileName.string ?? fileName.description }
}
