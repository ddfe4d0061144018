import Glibc

/// Values of the file system that holds a root, from `fstatvfs(2)`.
public struct VolumeValues: Sendable, Hashable, Codable {
    /// Total size in bytes.
    public var capacity: Int64
    /// Free bytes, including those reserved for the superuser.
    public var freeBytes: Int64
    /// Bytes an unprivileged process may still write (`f_bavail`), usually less than ``freeBytes``.
    public var availableBytes: Int64
    /// Total inodes.
    public var totalNodes: Int64
    /// Free inodes.
    public var freeNodes: Int64
    /// Longest name allowed.
    public var maximumNameLength: Int
    /// Whether the file system is mounted read-only.
    public var isReadOnly: Bool
}

extension ConfinedRoot {
    /// The values of the file system that holds this root.
    ///
    /// - Throws: ``SandboxError`` for the rare `fstatvfs` failure (e.g. an I/O error).
    public func volumeValues() throws(SandboxError) -> VolumeValues {
        var info = statvfs()
        _ = try syscall("fstatvfs", path: hostPath) { fstatvfs(descriptor, &info) }
        let unit = Int64(info.f_frsize)
        return VolumeValues(
            capacity: Int64(info.f_blocks) * unit,
            freeBytes: Int64(info.f_bfree) * unit,
            availableBytes: Int64(info.f_bavail) * unit,
            totalNodes: Int64(info.f_files),
            freeNodes: Int64(info.f_ffree),
            maximumNameLength: Int(info.f_namemax),
            isReadOnly: info.f_flag & UInt(ST_RDONLY) != 0
        )
    }
}
