import Foundation
import SandboxCore

/// One item of an app's part of a snapshot, as browsing shows it.
public struct SnapshotEntry: Sendable, Hashable, Codable {
    /// The path relative to the container's home (names that are not UTF-8 shown with U+FFFD).
    public var path: String
    /// A folder, a file or a symlink.
    public var kind: TreeNode.Kind
    /// The size in bytes (a file's contents').
    public var size: Int64
    /// The permission bits.
    public var mode: UInt32
    /// The modification time.
    public var modified: Date
    /// A symlink's target, as stored (never followed).
    public var target: String?

    init(_ path: String, _ node: TreeNode) {
        self.path = path
        kind = node.kind
        size = node.size
        mode = node.mode
        modified = Date(secondsSince1970: node.modified.seconds, nanoseconds: node.modified.nanoseconds)
        target = node.target.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// One difference between two snapshots.
public struct SnapshotChange: Sendable, Hashable, Codable {
    /// What happened to the item.
    public enum Kind: String, Sendable, Codable {
        case added, removed, modified
    }

    /// The app whose item it is.
    public var app: String
    /// The item's path in the container.
    public var path: String
    /// Added, removed or modified (contents, kind, mode or link target).
    public var change: Kind
    /// Its size in the first snapshot; `nil` when added.
    public var sizeBefore: Int64?
    /// Its size in the second snapshot; `nil` when removed.
    public var sizeAfter: Int64?
}

/// A snapshot's sizes, as `sandbox snapshots` shows them.
public struct SnapshotSizes: Sendable, Hashable, Codable {
    /// The bytes of file contents the snapshot holds.
    public var total: Int64
    /// The bytes of blobs (contents, trees, manifests, keychains) no older snapshot refers to:
    /// what this snapshot added to the repository, before encryption.
    public var added: Int64
}
