import CSandboxShims
import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// Makes the checked items of a domain (``IOSBackupRowCheck``) as a tree in a scratch root that
/// refuses every symlink on the way: folders, files (their contents from the backup's
/// ``IOSBackupFileSource``, their mode without set-user-ID and set-group-ID, their times), links.
/// Folders get their modes and times last, deepest first, after their contents.
struct IOSBackupTreeBuilder {
    let root: ConfinedRoot
    let source: any IOSBackupFileSource
    let limits: IOSBackupLimits
    private(set) var bytes: Int64 = 0

    init(root: ConfinedRoot, source: any IOSBackupFileSource, limits: IOSBackupLimits) {
        self.root = root
        self.source = source
        self.limits = limits
    }

    /// Makes `items` (parents before their contents, as `Manifest.db`'s order by path has them).
    mutating func build(_ items: [IOSBackupItem]) throws(SandboxError) {
        var directories: [(ContainerPath, IOSBackupItem)] = []
        for item in items {
            let path = try ContainerPath(item.relativePath)
            let shown = "\(source.displayName): \(item.domain) '\(item.relativePath)'"
            do throws(SandboxError) {
                if !path.parent.isRoot, try !root.directoryExists(at: path.parent) {
                    try root.createDirectory(at: path.parent, withIntermediateDirectories: true)
                }
                let parent = try root.openParent(of: path)
                switch item.kind {
                case .directory:
                    _ = try syscall("mkdirat", path: shown) { mkdirat(parent.rawValue, parent.name.cString, 0o700) }
                    try setExtendedAttributes(item, at: path)
                    directories.append((path, item))
                case .symlink:
                    _ = try syscall("symlinkat", path: shown) {
                        symlinkat(item.target ?? "", parent.rawValue, parent.name.cString)
                    }
                    var times = Self.times(item)
                    _ = try syscall("utimensat", path: shown) {
                        utimensat(parent.rawValue, parent.name.cString, &times, CSB_AT_SYMLINK_NOFOLLOW)
                    }
                case .file:
                    bytes += item.size
                    guard bytes <= limits.maximumBytes else {
                        throw IOSBackupProblem.refusal(
                            shown, "is past the limit of \(limits.maximumBytes) bytes of files", code: .tooLarge)
                    }
                    let made = try syscall("openat", path: shown) {
                        openat(
                            parent.rawValue, parent.name.cString,
                            O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC, 0o600)
                    }
                    let file = OwnedDescriptor(taking: made)
                    try source.copyFile(
                        item.fileID, size: item.size, encryptionKey: item.encryptionKey, to: file.rawValue,
                        shown: shown)
                    try setExtendedAttributes(item, at: path)
                    _ = try syscall("fchmod", path: shown) { fchmod(file.rawValue, mode_t(item.mode) & 0o1777) }
                    var times = Self.times(item)
                    _ = try syscall("futimens", path: shown) { futimens(file.rawValue, &times) }
                }
            } catch
                where error.code == .alreadyExists || error.code == .notADirectory || error.code == .symlinkLoop
                || error.code == .escapesContainer
            {
                throw IOSBackupProblem.refusal(
                    shown, "cannot be made: an item of the backup is already there, or its folder is not one")
            }
        }
        for (path, item) in directories.reversed() {
            let shown = "\(source.displayName): \(item.domain) '\(item.relativePath)'"
            let parent = try root.openParent(of: path)
            _ = try syscall("fchmodat", path: shown) {
                fchmodat(parent.rawValue, parent.name.cString, mode_t(item.mode) & 0o1777, 0)
            }
            var times = Self.times(item)
            _ = try syscall("utimensat", path: shown) {
                utimensat(parent.rawValue, parent.name.cString, &times, CSB_AT_SYMLINK_NOFOLLOW)
            }
        }
    }

    /// Gives the item at `path` its `user.` extended attributes.
    private func setExtendedAttributes(_ item: IOSBackupItem, at path: ContainerPath) throws(SandboxError) {
        for (name, value) in item.extendedAttributes.sorted(by: { $0.key < $1.key }) {
            try root.setExtendedAttribute(named: IOSBackupExport.userPrefix + name, to: value, at: path)
        }
    }

    /// Access and modification times, both the item's modification time.
    private static func times(_ item: IOSBackupItem) -> [timespec] {
        let time = timespec(tv_sec: Int(item.lastModified), tv_nsec: 0)
        return [time, time]
    }
}
