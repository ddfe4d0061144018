import Foundation
import Sandbox

/// A time as the file system keeps it: seconds and nanoseconds since 1970.
public struct Timestamp: Sendable, Hashable, Codable {
    /// Whole seconds since 1970-01-01 00:00 UTC.
    public var seconds: Int64
    /// Nanoseconds past ``seconds`` (0 ..< 1,000,000,000).
    public var nanoseconds: Int64

    /// A time of `seconds` and `nanoseconds` since 1970.
    public init(seconds: Int64, nanoseconds: Int64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }
}

/// One item of an app's container in a snapshot: what a restore needs to make it again.
public struct TreeNode: Sendable, Hashable, Codable {
    /// What the item is: a restore makes nothing else (no devices, FIFOs or sockets).
    public enum Kind: String, Sendable, Codable {
        case directory, file, symlink
    }

    /// The path relative to the container's home, byte for byte (names need not be UTF-8).
    public var path: Data
    /// A folder, a regular file or a symlink.
    public var kind: Kind
    /// The permission bits (`st_mode & 07777`).
    public var mode: UInt32
    /// The owner, recorded only: a restore gives items the restoring user.
    public var uid: UInt32
    /// The group, recorded only, as ``uid``.
    public var gid: UInt32
    /// The size in bytes, as `lstat` gave it (for a file, its contents').
    public var size: Int64
    /// The modification time, which a restore gives back.
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
    /// The device the item was on (with ``inode``, what the next backup compares).
    public var device: UInt64
    /// The status-change time (`st_ctime`), which the next backup compares.
    public var changed: Timestamp

    /// The path for display.
    public var displayPath: String { String(decoding: path, as: UTF8.self) }
}

/// An app's part of a snapshot.
public struct AppSnapshot: Sendable, Hashable, Codable {
    /// The name of an App Group's part, iOS's domain for it: `AppDomainGroup-<group-id>`.
    public static func groupPartName(_ group: AppGroupIdentifier) -> String { "AppDomainGroup-\(group.rawValue)" }

    /// The app identifier.
    public var app: String
    /// The tree (JSON array of ``TreeNode``), split into blobs.
    public var tree: [String]
    /// The iOS-shaped `Manifest.db` (SQLite), split into blobs.
    public var manifest: [String]
    /// The keychain record (the app's items and their rules), one blob; absent when the app has no items.
    public var keychain: String?
    /// Items in the app's part.
    public var files: Int
    /// Bytes of file contents in the app's part.
    public var bytes: Int64
    /// The items left out of this app's part (an app held them locked, or swapped them for a
    /// symlink while they were read), by path; `nil` when none was: the part is then complete.
    public var skipped: [String]?
}

/// A `snapshots/<id>` object: one per backup run, written last.
public struct SnapshotRecord: Sendable, Hashable, Codable {
    /// When the backup started.
    public var time: Date
    /// The name of the machine the backup ran on.
    public var hostname: String
    /// The device (sandbox home) the backup was taken on: an HMAC of its device key, so it says
    /// nothing of the key. `nil` when the device had no key yet.
    public var device: String?
    /// Where the device's home was.
    public var home: String
    /// Each app backed up, with its part of the snapshot.
    public var apps: [AppSnapshot]
    /// The container of each App Group of the apps backed up, once each, as a part named as iOS
    /// names its domain (``AppSnapshot/groupPartName(_:)``: `AppDomainGroup-<group-id>`); `nil` when
    /// none (snapshots from before App Groups have none).
    public var groups: [AppSnapshot]?
    /// The snapshot this one was compared to, if any.
    public var parent: String?
    /// For a snapshot copied from another repository, the id of the snapshot first taken (the
    /// original's own `original` when it was a copy too): a copy skips snapshots already copied.
    public var original: String?

    /// Every part: the apps', then the App Groups'. What refers to blobs (prune, check, sizes)
    /// walks these.
    public var parts: [AppSnapshot] { apps + (groups ?? []) }

    /// The items left out, as `app: path`: the snapshot is incomplete when there are any.
    public var incompleteItems: [String] {
        parts.flatMap { part in (part.skipped ?? []).map { "\(part.app): \($0)" } }
    }
}

/// A snapshot and its id (the SHA-256 of its stored bytes).
public struct Snapshot: Sendable, Hashable {
    /// The id: 64 hex digits, the SHA-256 of the stored record.
    public var id: String
    /// What the snapshot holds.
    public var record: SnapshotRecord

    /// The first 8 hex digits, as listings show it.
    public var shortID: String { String(id.prefix(8)) }
}

/// An `index/<id>` object: the blobs one backup stored, with their plaintext sizes.
struct IndexRecord: Codable {
    var blobs: [String: Int]
}
