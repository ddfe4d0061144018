import CSandboxShims
import Foundation
import SystemPackage

/// Resource values of one item, read with `statx(2)`.
///
/// Unlike Foundation on Linux, ``allocatedSize`` is `st_blocks × 512` (Foundation multiplies by
/// the block size and reports 8× too much) and ``creationDate`` is the real birth time (`stx_btime`),
/// `nil` where the file system does not record one (Foundation returns the status-change time).
public struct FileAttributes: Sendable, Hashable {
    /// What the item is: regular file, directory, symlink, …
    public var type: ItemType
    /// Logical size in bytes (`st_size`).
    public var size: Int64
    /// Bytes of storage allocated (`st_blocks × 512`): smaller than ``size`` for sparse files.
    public var allocatedSize: Int64
    /// The mode's permission bits, with set-user-ID, set-group-ID and sticky.
    public var permissions: FilePermissions
    /// The owner's user ID (`st_uid`).
    public var ownerID: UInt32
    /// The group ID (`st_gid`).
    public var groupID: UInt32
    /// How many hard links name the item (`st_nlink`).
    public var linkCount: UInt32
    /// The inode number (`st_ino`): with ``device``, the item's identity across renames.
    public var inode: UInt64
    /// The device of the file system holding the item (`st_dev`, major and minor combined).
    public var device: UInt64
    /// Birth time, where the file system records it.
    public var creationDate: Date?
    /// When the contents last changed (`st_mtime`).
    public var modificationDate: Date
    /// When the contents were last read (`st_atime`), as far as the mount's `atime` option records.
    public var accessDate: Date
    /// When the inode last changed (permissions, links, contents).
    public var statusChangeDate: Date

    init(_ raw: csb_statx_t) {
        type = ItemType(mode: raw.mode)
        size = Int64(raw.size)
        allocatedSize = Int64(raw.blocks) * 512
        permissions = FilePermissions(rawValue: mode_t(raw.mode & 0o7777))
        ownerID = raw.uid
        groupID = raw.gid
        linkCount = raw.nlink
        inode = raw.ino
        device = UInt64(raw.dev_major) << 32 | UInt64(raw.dev_minor)
        creationDate = raw.mask & CSB_STATX_BTIME != 0 ? Self.date(raw.btime_sec, raw.btime_nsec) : nil
        modificationDate = Self.date(raw.mtime_sec, raw.mtime_nsec)
        accessDate = Self.date(raw.atime_sec, raw.atime_nsec)
        statusChangeDate = Self.date(raw.ctime_sec, raw.ctime_nsec)
    }

    private static func date(_ seconds: Int64, _ nanoseconds: UInt32) -> Date {
        Date(secondsSince1970: seconds, nanoseconds: nanoseconds)
    }

    /// When the item was last used: the later of access and modification (access times are
    /// updated lazily under `relatime`, so modification counts as use too).
    public var lastUsedDate: Date { max(accessDate, modificationDate) }
}
