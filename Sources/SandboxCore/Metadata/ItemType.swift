import Glibc

/// The kind of an item, from `st_mode` or a directory entry's `d_type`.
public enum ItemType: String, Sendable, Hashable, Codable, CustomStringConvertible {
    case regular
    case directory
    case symlink
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case unknown

    init(mode: UInt32) {
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): self = .regular
        case UInt32(S_IFDIR): self = .directory
        case UInt32(S_IFLNK): self = .symlink
        case UInt32(S_IFIFO): self = .fifo
        case UInt32(S_IFSOCK): self = .socket
        case UInt32(S_IFCHR): self = .characterDevice
        case UInt32(S_IFBLK): self = .blockDevice
        default: self = .unknown
        }
    }

    /// From `d_type`; ``unknown`` when the file system does not fill it in (then `fstatat` tells).
    init(directoryEntryType type: UInt8) {
        switch Int32(type) {
        case Int32(DT_REG): self = .regular
        case Int32(DT_DIR): self = .directory
        case Int32(DT_LNK): self = .symlink
        case Int32(DT_FIFO): self = .fifo
        case Int32(DT_SOCK): self = .socket
        case Int32(DT_CHR): self = .characterDevice
        case Int32(DT_BLK): self = .blockDevice
        default: self = .unknown
        }
    }

    /// The type's name, e.g. `directory`.
    public var description: String { rawValue }
}
