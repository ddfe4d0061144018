import CSandboxShims
import Foundation
import Glibc
import SandboxCore

/// An item of a container met by the scan, with what `lstat` said of it then.
struct ScannedItem {
    var path: ContainerPath
    var kind: TreeNode.Kind
    var info: stat
    var extendedAttributes: [String: [UInt8]]
    var target: [UInt8]?

    var modified: Timestamp { Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec)) }
    var changed: Timestamp { Timestamp(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int64(info.st_ctim.tv_nsec)) }
    var pathBytes: [UInt8] { Self.bytes(of: path) }

    /// A path's bytes as the kernel sees them (`a/b`).
    static func bytes(of path: ContainerPath) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, name) in path.names.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "/")) }
            bytes += name.bytes
        }
        return bytes
    }

    /// Whether `previous` (the previous snapshot's node of this path) is this file unchanged, by
    /// what `lstat` tells: size, modification and status-change times, inode and device. A file
    /// that passes is not read again: its chunks, and whether it is a database, are taken over.
    func isUnchanged(since previous: TreeNode) -> Bool {
        kind == .file && previous.kind == .file && previous.hardLinkTo == nil && previous.chunks != nil
            && previous.size == Int64(info.st_size) && previous.modified == modified && previous.changed == changed
            && previous.inode == UInt64(info.st_ino) && previous.device == UInt64(info.st_dev)
    }

    /// The tree node of the item, contents not yet stored.
    func node() -> TreeNode {
        let attributes: [String: Data]? = extendedAttributes.isEmpty ? nil : extendedAttributes.mapValues { Data($0) }
        let size: Int64 = kind == .file ? Int64(info.st_size) : 0
        let mode = UInt32(info.st_mode & 0o7777)
        return TreeNode(
            path: Data(pathBytes), kind: kind, mode: mode, uid: info.st_uid, gid: info.st_gid, size: size,
            modified: modified, accessed: nil, extendedAttributes: attributes, chunks: nil,
            target: target.map { Data($0) }, hardLinkTo: nil, source: nil, inode: UInt64(info.st_ino),
            device: UInt64(info.st_dev), changed: changed)
    }
}
