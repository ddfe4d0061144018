/// One item of a directory listing.
public struct DirectoryEntry: Sendable, Hashable {
    /// The item's name within its directory.
    public var name: String
    /// The item's path within the container.
    public var path: ContainerPath
    /// The item's type: from `d_type`, or from `fstatat` where the file system leaves it unknown.
    public var type: ItemType
    /// Resource values, when they were asked for while enumerating.
    public var attributes: FileAttributes?

    public init(name: String, path: ContainerPath, type: ItemType, attributes: FileAttributes? = nil) {
        self.name = name
        self.path = path
        self.type = type
        self.attributes = attributes
    }
}
