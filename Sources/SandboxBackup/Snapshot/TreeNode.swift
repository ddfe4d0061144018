import Foundation

/// A time as the file system keeps it: seconds and nanoseconds since 1970.
public struct Timestamp: Sendable, Hashable, Codable {
    public var seconds: Int64
    public var nanoseconds: Int64

    public init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }
}

/// One item of an app's container in a snapshot: what a restore needs to make it again.
public struct TreeNode: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case directory, file, symlink
    }

    /// The path relative to the container's home, byte for byte (names need not be UTF-8).
    public var path: Data
    public var kind: Kind
    /// The permission bits (`st_mode & 07777`).
    public var mode: UInt32
    public var uid: UInt32
    public var gid: UInt32
    public var size: Int64
    public var modified: Timestamp
    /// Not recorded (always `nil`), as restic by default: reading a file for the backup moves its
    /// access time, so recording it would change every tree — and every `Manifest.db` — at every
    /// backup, defeating deduplication. A restore leaves access times at the time of the restore.
    public var accessed: Timestamp?
    /// `user.` extended attributes but the excluded-from-backup flag (an excluded item is not in
    /// the snapshot at all).
    public var extendedAttributes: [String: Data]?
    /// A file's contents, as blob ids in order.
    public var chunks: [String]?
    /// A symlink's target, as stored (never followed).
    public var target: Data?
    /// For the second and later names of a hard-linked file: the path of the first, whose contents
    /// this one shares (its own `chunks` are absent).
    public var hardLinkTo: Data?
    /// How the contents were read: `sqlite-online-backup` for databases, `preferences-lock` for
    /// the preferences file; absent for a plain read.
    public var source: String?
    /// What the next backup compares to reuse `chunks` without reading the file.
    public var inode: UInt64
    public var device: UInt64
    public var changed: Timestamp

    /// The path for display.
    public var displayPath: String { String(decoding: path, as: UTF8.self) }
}

/// An app's part of a snapshot.
public struct AppSnapshot: Sendable, Hashable, Codable {
    /// The app identifier.
    public var app: String
    /// The tree (JSON array of ``TreeNode``), split into blobs.
    public var tree: [String]
    /// The iOS-shaped `Manifest.db` (SQLite), split into blobs.
    public var manifest: [String]
    /// The keychain record (the app's items and their rules), one blob; absent when the app has no items.
    public var keychain: String?
    public var files: Int
    public var bytes: Int64
    /// The items left out of this app's part (an app held them locked, or swapped them for a
    /// symlink while they were read), by path; `nil` when none was: the part is then complete.
    public var skipped: [String]?
}

/// A `snapshots/<id>` object: one per backup run, written last.
public struct SnapshotRecord: Sendable, Hashable, Codable {
    public var time: Date
    public var hostname: String
    /// The device (sandbox home) the backup was taken on: an HMAC of its device key, so it says
    /// nothing of the key. `nil` when the device had no key yet.
    public var device: String?
    /// Where the device's home was.
    public var home: String
    public var apps: [AppSnapshot]
    /// The snapshot this one was compared to, if any.
    public var parent: String?

    /// The items left out, as `app: path`: the snapshot is incomplete when there are any.
    public var incompleteItems: [String] {
        apps.flatMap { part in (part.skipped ?? []).map { "\(part.app): \($0)" } }
    }
}

/// A snapshot and its id (the SHA-256 of its stored bytes).
public struct Snapshot: Sendable, Hashable {
    public var id: String
    public var record: SnapshotRecord

    /// The first 8 hex digits, as listings show it.
    public var shortID: String { String(id.prefix(8)) }
}

/// An `index/<id>` object: the blobs one backup stored, with their plaintext sizes.
struct IndexRecord: Codable {
    var blobs: [String: Int]
}
