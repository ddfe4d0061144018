import Foundation
import Sandbox

/// A preferences file on disk: `Library/Preferences/<name>.plist`, binary, beside its lock file
/// `Library/Preferences/.<name>.plist.lock`. The name is the app's identifier in its data container,
/// the group's identifier (a suite) in an App Group's container.
final class PreferencesFile: Sendable {
    let root: ConfinedRoot
    let path: ContainerPath
    let lock: FileLock

    /// The largest preferences file read (preferences are small; big data belongs in files).
    static let maximumSize = 16 << 20

    /// The file `name` (an app or group identifier, valid as a file name) in `root`'s
    /// `Library/Preferences`, which is made if missing.
    init(root: ConfinedRoot, name: String) throws(SandboxError) {
        let directory = ContainerDirectory.preferences.path ?? ContainerPath(constant: "Library/Preferences")
        self.root = root
        try root.createDirectory(at: directory, withIntermediateDirectories: true)
        path = try directory.appending("\(name).plist")
        let lockPath = try directory.appending(".\(name).plist.lock")
        lock = try FileLock(root: root, path: lockPath)
    }

    /// The file's stamp, or `nil` when there is no file.
    func stamp() throws(SandboxError) -> FileStamp? {
        try FileStamp.of(path, in: root)
    }

    /// The stored values (empty when there is no file) and the stamp of what was read.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a file that is not a dictionary property list;
    ///   the file is left as it was.
    func read() throws(SandboxError) -> (values: [String: PreferenceValue], stamp: FileStamp?) {
        let before = try stamp()
        guard before != nil else { return ([:], nil) }
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: Self.maximumSize)
        } catch  where error.code == .notFound {
            return ([:], nil)  // removed between the two calls
        } catch {
            throw error
        }
        let value: PreferenceValue
        do {
            value = try PropertyList.value(from: bytes, path: path.description)
        } catch  where error.code == .corrupt {
            throw SandboxError(.corrupt, damaged, path: path.description, underlying: error.underlying)
        }
        guard case .dictionary(let values) = value else {
            throw SandboxError(
                .corrupt, damaged, path: path.description,
                underlying: .detail("the top level is a \(value.typeName), not a dictionary"))
        }
        // The stamp of the bytes read: a writer may have replaced the file since `before`.
        return (values, try stamp())
    }

    /// Replaces the file with `values`, atomically and durably; returns the new file's stamp.
    ///
    /// What each `fsync` of `[.atomic, .durable]` buys (issue 16 measured which could go):
    /// - `fsync` of the new, unnamed file before it is linked: its bytes and inode are on disk
    ///   before any name points at it, so after a power cut the name never leads to an empty or
    ///   partial file (ext4's `data=ordered` would mostly cover this; XFS and btrfs would not).
    ///   `fdatasync` would skip only the timestamps: a new inode's size and block map must be
    ///   written either way, and the two measured the same within this machine's noise.
    /// - `fsync` of the directory after the rename: the rename is on disk, so the new value
    ///   survives a power cut once the call returns. It is needed even when the name already
    ///   existed: the rename points the existing entry at a new inode, a change of the directory,
    ///   and without it a crash can bring back the old entry (atomic, but the write lost).
    /// Coalescing writes that arrive together (group commit) would save fsyncs only for writers
    /// that overlap; one writer waiting for each write, as apps do, has nothing to coalesce.
    func write(_ values: [String: PreferenceValue]) throws(SandboxError) -> FileStamp? {
        let bytes = try PropertyList.encode(values, format: .binary)
        try root.writeContents(bytes, to: path, options: [.atomic, .durable])
        return try stamp()
    }

    private var damaged: String {
        "The preferences file '\(path)' is damaged: it is not a property list holding a dictionary. It was left as it was; remove it to start from the defaults, or restore it from a backup."
    }
}
