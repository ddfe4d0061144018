import CSandboxShims
import Glibc
import SandboxCore
import SystemPackage

/// Lists a domain's tree, copied into an export's staging folder, as backup items: folders and
/// links as rows, files as rows whose contents move to `<fileID[0:2]>/<fileID>` once listed
/// (``files``). Every item's metadata is read before anything moves (a folder's times change when
/// a file leaves it).
struct IOSBackupIndexer: TreeVisitor {
    let domain: String
    /// The tree's top, for messages.
    let source: String
    private(set) var items: [IOSBackupItem] = []
    /// The files' paths beneath the tree's top, with their items' fileIDs.
    private(set) var files: [(path: ContainerPath, fileID: String)] = []

    init(domain: String, source: String) {
        self.domain = domain
        self.source = source
    }

    /// Lists the tree of the open folder `directory`.
    mutating func index(_ directory: CInt) throws(SandboxError) {
        var walk = try TreeWalk(root: directory, at: .root)
        try walk.run(&self)
    }

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        let name = entry.fileName
        let shown = "\(source)/\(location.display(name))"
        guard let path = location.path(of: name) else {
            throw SandboxError(.nameTooLong, "'\(shown)' is deeper than a path can name (4,095 bytes).", path: shown)
        }
        var parts: [String] = []
        for part in path.names {
            guard let text = String(validating: part.bytes, as: UTF8.self) else {
                throw SandboxError(
                    .invalidArgument,
                    "'\(shown)' has a name that is not UTF-8, which an iOS backup cannot list; nothing was exported. Rename it, then export again.",
                    path: shown)
            }
            parts.append(text)
        }
        var info = stat()
        guard fstatat(entry.directory, entry.name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: shown)
        }
        var item = IOSBackupItem(
            domain: domain, relativePath: parts.joined(separator: "/"), kind: .file, mode: UInt32(info.st_mode),
            size: 0, lastModified: Int64(info.st_mtim.tv_sec), lastStatusChange: Int64(info.st_ctim.tv_sec),
            birth: Int64(info.st_mtim.tv_sec), inode: Int64(bitPattern: UInt64(info.st_ino)))
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            item.kind = .directory
        case S_IFLNK:
            item.kind = .symlink
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = try syscall("readlinkat", path: shown) {
                readlinkat(entry.directory, entry.name, &buffer, buffer.count - 1)
            }
            item.target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        default:  // the copy made only folders, files and links
            item.size = Int64(info.st_size)
            files.append((path, item.fileID))
        }
        items.append(item)
        return item.kind == .directory
    }
}
