import CSandboxShims
import Foundation
import Glibc
import SandboxCore
import SystemPackage

/// Makes a snapshot's tree again in a staging root: directories, files (chunk by chunk, each
/// checked against its id), hard links (once), symlinks (as links), with modes, `user.` extended
/// attributes and times. Directories get their modes and times last, after their contents.
///
/// File contents come from a ``BlobPrefetcher`` that loads ``contentIDs(of:)`` — the blobs of the
/// nodes in the order ``write(_:)`` takes them — on other threads.
struct TreeWriter {
    let root: ConfinedRoot
    let blobs: BlobPrefetcher
    /// Writes files of at most ``smallFileSize`` bytes on other threads.
    let files: FileWritePool
    static let smallFileSize: Int64 = 1 << 20
    private var directories: [(ContainerPath, TreeNode)] = []

    /// The container's layout, made (empty) when the snapshot has none of it: `Library/Caches`
    /// and `tmp` are never in a snapshot.
    static let layout: [ContainerPath] = [
        "Documents", "Documents/Inbox", "Library", "Library/Preferences", "Library/Application Support",
        "Library/Caches", "tmp",
    ].map { ContainerPath(constant: $0) }

    init(root: ConfinedRoot, blobs: BlobPrefetcher, files: FileWritePool) {
        self.root = root
        self.blobs = blobs
        self.files = files
    }

    /// The blobs ``write(_:)`` reads for `nodes`, in the order it reads them.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a node whose path is not
    ///   one a restore writes (as ``write(_:)``).
    static func contentIDs(of nodes: [TreeNode]) throws(SandboxError) -> [String] {
        var ids: [String] = []
        for node in nodes where node.kind == .file && node.hardLinkTo == nil {
            if isSkipped(try RestorePath.path(of: node.path)) { continue }
            ids += node.chunks ?? []
        }
        return ids
    }

    /// Whether nothing is written at `path` (`Library/Caches`, `tmp`: never in a snapshot).
    private static func isSkipped(_ path: ContainerPath) -> Bool {
        ContainerScanner.skippedDirectories.contains(where: { path.isDescendant(of: $0) })
    }

    /// Makes `node`; returns the bytes written.
    mutating func write(_ node: TreeNode) throws(SandboxError) -> Int64 {
        let path = try RestorePath.path(of: node.path)
        if Self.isSkipped(path) { return 0 }
        switch node.kind {
        case .directory:
            try root.createDirectory(at: path, withIntermediateDirectories: true)
            try Self.setExtendedAttributes(node, at: path, in: root)
            directories.append((path, node))
            return 0
        case .symlink:
            let parent = try root.openParent(of: path)
            let target = Array(node.target ?? Data()) + [0]
            let result = target.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars -> CInt in
                    guard let base = chars.baseAddress else { return -1 }
                    return symlinkat(base, parent.rawValue, parent.name.cString)
                }
            }
            guard result == 0 else {
                throw .systemCall("symlinkat", errno: Errno(rawValue: errno), path: path.description)
            }
            try setTimes(node, at: path)
            return 0
        case .file:
            if let first = node.hardLinkTo {
                try files.drain()  // the first file is written
                let firstPath = try RestorePath.path(of: first)
                let from = try root.openParent(of: firstPath)
                let to = try root.openParent(of: path)
                guard linkat(from.rawValue, from.name.cString, to.rawValue, to.name.cString, 0) == 0 else {
                    throw .systemCall("linkat", errno: Errno(rawValue: errno), path: path.description)
                }
                return 0
            }
            if node.size <= Self.smallFileSize {
                // Its blobs now (in order), the file on a pool thread.
                var contents: [[UInt8]] = []
                var total: Int64 = 0
                for id in node.chunks ?? [] {
                    contents.append(try blobs.next(id))
                    total += Int64(contents[contents.count - 1].count)
                    // A forged size must not make this hold more than a small file.
                    if total > node.size { throw Self.sizeMismatch(node, at: path, holding: total) }
                }
                let root = root
                let written = contents
                try files.submit { () throws(SandboxError) in
                    var pieces = written.makeIterator()
                    _ = try Self.writeFile(node, at: path, in: root) { pieces.next() }
                }
                return node.size
            }
            let blobs = blobs
            var ids = (node.chunks ?? []).makeIterator()
            return try Self.writeFile(node, at: path, in: root) { () throws(SandboxError) in
                guard let id = ids.next() else { return nil }
                return try blobs.next(id)
            }
        }
    }

    /// Writes the file `node` at `path` from the pieces `next` gives (`nil`: no more), checks its
    /// size, then its extended attributes, mode and times; returns the bytes written.
    private static func writeFile(
        _ node: TreeNode, at path: ContainerPath, in root: ConfinedRoot,
        _ next: () throws(SandboxError) -> [UInt8]?
    ) throws(SandboxError) -> Int64 {
        var written: Int64 = 0
        let file = try root.openFile(forWritingAt: path, options: .newFile(replaceExisting: false))
        do throws(SandboxError) {
            while let bytes = try next() {
                try bytes.withBytes { (buffer) throws(SandboxError) in try file.write(buffer) }
                written += Int64(bytes.count)
            }
            guard written == node.size else { throw sizeMismatch(node, at: path, holding: written) }
            // Extended attributes while the mode still lets the owner write them; then mode
            // and times through the open descriptor (no second and third path lookup).
            try setExtendedAttributes(node, at: path, in: root)
            try file.withUnsafeDescriptor { (fd) throws(SandboxError) in
                guard fchmod(fd.rawValue, Self.permissions(node).rawValue) == 0 else {
                    throw .systemCall("fchmod", errno: Errno(rawValue: errno), path: path.description)
                }
                var times = Self.times(node)
                guard futimens(fd.rawValue, &times) == 0 else {
                    throw .systemCall("futimens", errno: Errno(rawValue: errno), path: path.description)
                }
            }
            try file.close()
        } catch {
            _ = try? file.close()  // the write's error is the one to report
            throw error
        }
        return written
    }

    private static func sizeMismatch(_ node: TreeNode, at path: ContainerPath, holding bytes: Int64) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "'\(path)' should be \(node.size) bytes but its chunks hold \(bytes); the snapshot is damaged.",
            path: path.description)
    }

    /// Makes the layout's missing directories, then gives directories their modes and times.
    mutating func finish() throws(SandboxError) {
        try files.drain()  // every file written before its directory gets its times
        for path in Self.layout where try !root.directoryExists(at: path) {
            try root.createDirectory(at: path, withIntermediateDirectories: true)
        }
        for (path, node) in directories.reversed() {
            try root.setPermissions(Self.permissions(node), at: path)
            try setTimes(node, at: path)
        }
        // Durable before the exchange publishes it: one syncfs(2) of the container's file system
        // for the whole restore.
        try FileSystemSync.synchronize(directoryAt: root.hostPath)
    }

    /// The node's permission bits without set-user-ID and set-group-ID: a snapshot is data from
    /// the repository, and no app file needs them.
    static func permissions(_ node: TreeNode) -> FilePermissions {
        FilePermissions(rawValue: CInterop.Mode(node.mode & 0o1777))
    }

    private static func setExtendedAttributes(
        _ node: TreeNode, at path: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) {
        for (name, value) in node.extendedAttributes ?? [:] where name.hasPrefix("user.") {
            try root.setExtendedAttribute(named: name, to: Array(value), at: path)
        }
    }

    /// The access and modification times to give `node` (`utimensat(2)`'s two `timespec`s).
    private static func times(_ node: TreeNode) -> [timespec] {
        [
            node.accessed.map { timespec(tv_sec: Int($0.seconds), tv_nsec: Int($0.nanoseconds)) }
                ?? timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT: leave it
            timespec(tv_sec: Int(node.modified.seconds), tv_nsec: Int(node.modified.nanoseconds)),
        ]
    }

    private func setTimes(_ node: TreeNode, at path: ContainerPath) throws(SandboxError) {
        let parent = try root.openParent(of: path)
        var times = Self.times(node)
        guard utimensat(parent.rawValue, parent.name.cString, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .systemCall("utimensat", errno: Errno(rawValue: errno), path: path.description)
        }
    }
}
