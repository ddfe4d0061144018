import CSandboxShims
import Glibc
import Sandbox
import SandboxCore
import SystemPackage

/// Lists what a backup of a data container holds, by iOS's rules: everything but the directories
/// the container's policy keeps out of backups (``/Sandbox/DirectoryPolicy/isBackedUp``:
/// `Library/Caches` and `tmp`) and items flagged excluded from backup (an excluded directory with
/// all it holds). The
/// bundle lives in another container and is never met. Symlinks are listed as themselves, never
/// followed; FIFOs, sockets and devices are skipped (reported). Parents come before their contents.
struct ContainerScanner: TreeVisitor {
    static let skippedDirectories = Set(ContainerDirectory.allCases.filter { !$0.policy.isBackedUp }.compactMap(\.path))

    let root: ConfinedRoot
    /// Lock files of the preferences: a running process's state, not data.
    let skippedNames: Set<ContainerPath>
    private(set) var items: [ScannedItem] = []
    private(set) var warnings: [String] = []
    /// Items swapped for a symlink (or something else) while they were read: left out.
    private(set) var skipped: [ContainerPath] = []

    /// Scans the data container `root`.
    ///
    /// - Throws: walk errors (``SandboxCore/SandboxError/Code/concurrentModification`` when a
    ///   directory moves mid-scan), `lstat` and extended-attribute errors.
    static func scan(_ root: ConfinedRoot, skipping names: Set<ContainerPath>) throws(SandboxError) -> ContainerScanner
    {
        var scanner = ContainerScanner(root: root, skippedNames: names)
        let directory = try root.openDirectory(.root)
        var walk = try TreeWalk(root: directory.rawValue, at: .root)
        try walk.run(&scanner)
        return scanner
    }

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        let name = entry.fileName
        guard let path = location.path(of: name) else {
            throw SandboxError(
                .nameTooLong,
                "'\(location.display(name))' is deeper than a path can name (4095 bytes); it cannot be backed up.",
                path: location.display(name))
        }
        if Self.skippedDirectories.contains(path) || skippedNames.contains(path) { return false }
        var info = stat()
        if fstatat(entry.directory, entry.name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return false }  // removed since it was listed
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: path.description)
        }
        let kind: TreeNode.Kind
        switch info.st_mode & S_IFMT {
        case S_IFDIR: kind = .directory
        case S_IFREG: kind = .file
        case S_IFLNK: kind = .symlink
        default:
            warnings.append("'\(path)' is a FIFO, socket or device: not backed up.")
            return false
        }
        var attributes: [String: [UInt8]] = [:]
        var target: [UInt8]?
        if kind == .symlink {
            target = try Self.readLink(entry, path: path)
        } else {
            do {
                for attribute in try root.extendedAttributeNames(at: path) where attribute.hasPrefix("user.") {
                    if attribute == Self.excludedAttribute { return false }
                    if let value = try root.extendedAttribute(named: attribute, at: path) {
                        attributes[attribute] = value
                    }
                }
            } catch  where error.code == .notFound {
                return false  // removed since it was listed
            } catch  where BackupRun.leavesItemOut(error) {
                warnings.append("'\(path)' was not backed up: \(error.message)")
                skipped.append(path)
                return false
            }
        }
        items.append(ScannedItem(path: path, kind: kind, info: info, extendedAttributes: attributes, target: target))
        return kind == .directory
    }

    /// The excluded-from-backup flag's attribute (``SandboxCore/ConfinedRoot/isExcludedFromBackup(at:)``).
    static let excludedAttribute = "user.sandbox.excluded-from-backup"

    private static func readLink(_ entry: WalkEntry, path: ContainerPath) throws(SandboxError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            return readlinkat(entry.directory, entry.name, base.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard count >= 0 else { throw .systemCall("readlinkat", errno: Errno(rawValue: errno), path: path.description) }
        return Array(buffer[0..<count])
    }
}
