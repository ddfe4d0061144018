import Foundation
import Sandbox

/// A preferences file on disk: `Library/Preferences/<app-id>.plist`, binary, beside its lock file
/// `Library/Preferences/.<app-id>.plist.lock`.
final class PreferencesFile: Sendable {
    /// What identifies one version of the file: every write replaces the file (a new inode), and
    /// the status-change time and size tell apart the rare reuse of an inode number.
    struct Stamp: Hashable, Sendable {
        var inode: UInt64
        var size: Int64
        var changed: Double
    }

    let root: ConfinedRoot
    let path: ContainerPath
    let lock: LockFile

    /// The largest preferences file read (preferences are small; big data belongs in files).
    static let maximumSize = 16 << 20

    init(root: ConfinedRoot, app: AppIdentifier) throws(StoreError) {
        let directory = ContainerDirectory.preferences.path ?? ContainerPath(constant: "Library/Preferences")
        self.root = root
        try fileSystem { () throws(SandboxError) in try root.createDirectory(at: directory, withIntermediateDirectories: true) }
        path = try fileSystem { () throws(SandboxError) in try directory.appending("\(app.rawValue).plist") }
        let lockPath = try fileSystem { () throws(SandboxError) in try directory.appending(".\(app.rawValue).plist.lock") }
        lock = try LockFile(root: root, path: lockPath)
    }

    /// The file's stamp, or `nil` when there is no file.
    func stamp() throws(StoreError) -> Stamp? {
        try fileSystem { () throws(SandboxError) in
            try root.attributes(at: path, followingSymlink: false).map {
                Stamp(inode: $0.inode, size: $0.size, changed: $0.statusChangeDate.timeIntervalSinceReferenceDate)
            }
        }
    }

    /// The stored values (empty when there is no file) and the stamp of what was read.
    ///
    /// - Throws: ``StoreError/Code/corrupt`` for a file that is not a dictionary property list;
    ///   the file is left as it was.
    func read() throws(StoreError) -> (values: [String: PreferenceValue], stamp: Stamp?) {
        let before = try stamp()
        guard before != nil else { return ([:], nil) }
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: Self.maximumSize)
        } catch where error.code == .notFound {
            return ([:], nil)  // removed between the two calls
        } catch {
            throw StoreError(error)
        }
        let value: PreferenceValue
        switch PropertyListFormat.detect(bytes) {
        case .binary?:
            do {
                value = try BinaryPropertyListReader(bytes).read()
            } catch {
                throw StoreError(.corrupt, damaged, path: path.description, cause: .decoding(error.description))
            }
        case .xml?:
            value = try PropertyList.decode(PreferenceValue.self, from: bytes, path: path.description)
        case nil:
            throw StoreError(.corrupt, damaged, path: path.description, cause: .decoding("not a property list"))
        }
        guard case .dictionary(let values) = value else {
            throw StoreError(.corrupt, damaged, path: path.description, cause: .decoding("the top level is a \(value.typeName), not a dictionary"))
        }
        // The stamp of the bytes read: a writer may have replaced the file since `before`.
        return (values, try stamp())
    }

    /// Replaces the file with `values`, atomically and durably; returns the new file's stamp.
    func write(_ values: [String: PreferenceValue]) throws(StoreError) -> Stamp? {
        let bytes = try PropertyList.encode(values, format: .binary)
        try fileSystem { () throws(SandboxError) in try root.writeContents(bytes, to: path, options: [.atomic, .durable]) }
        return try stamp()
    }

    private var damaged: String {
        "The preferences file '\(path)' is damaged: it is not a property list holding a dictionary. It was left as it was; remove it (`sandbox rm`) to start from the defaults, or restore it from a backup."
    }
}
