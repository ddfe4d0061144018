import CSandboxShims
import Foundation
import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// Makes a snapshot's tree again in a staging root: directories, files (chunk by chunk, each
/// checked against its id), hard links (once), symlinks (as links), with modes, `user.` extended
/// attributes and times. Directories get their modes and times last, after their contents.
///
/// The tree is a checked ``RestorePlan``: each item's folder is made before it, never through a
/// symlink (the staging root refuses every symlink on the way too). A file in a folder with a
/// default protection class is written as every other writer writes one there: sealed with that
/// class through ``/SandboxStore/DataProtection`` as its blobs arrive, never in the clear — unless
/// its contents are a protected file already (a protected file backed up as it is on disk), which
/// keeps its class, as a protected file moved there does.
///
/// File contents come from a ``BlobPrefetcher`` that loads ``RestorePlan/contentIDs`` — the blobs
/// of the items in the order ``write(_:at:)`` takes them — on other threads.
struct TreeWriter {
    let root: ConfinedRoot
    let blobs: BlobPrefetcher
    /// Writes files of at most ``smallFileSize`` bytes on other threads.
    let files: FileWritePool
    let dataProtection: DataProtection
    static let smallFileSize: Int64 = 1 << 20
    /// The container's own folders ``finish()`` makes where the tree lacks them (``RestorePlan/layout``).
    let layout: [ContainerPath]
    private var directories: [(ContainerPath, TreeNode)] = []

    init(
        root: ConfinedRoot, blobs: BlobPrefetcher, files: FileWritePool, dataProtection: DataProtection,
        layout: [ContainerPath] = RestorePlan.containerDirectories
    ) {
        self.root = root
        self.layout = layout
        self.blobs = blobs
        self.files = files
        self.dataProtection = dataProtection
    }

    /// Makes `node` at `path` (an item of a ``RestorePlan``); returns the bytes written.
    mutating func write(_ node: TreeNode, at path: ContainerPath) throws(SandboxError) -> Int64 {
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
            let protection = try dataProtection.defaultProtection(forDirectoryAt: path.parent, in: root)
            if let first = node.hardLinkTo {
                try files.drain()  // the first file is written
                let firstPath = try RestorePath.path(of: first)
                // A second name of a plain file, in a protected folder: a sealed copy there
                // (copyItem seals a plain file copied into such a folder), never a plain name.
                if protection != nil, try dataProtection.isPlainFile(at: firstPath, in: root) {
                    _ = try dataProtection.copyItem(from: firstPath, to: path, in: root)
                    try Self.setAttributes(node, at: path, in: root, sealedHere: true)
                    return 0
                }
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
                let dataProtection = dataProtection
                let written = contents
                try files.submit { () throws(SandboxError) in
                    var pieces = written.makeIterator()
                    if let protection, !DataProtection.isSealed(written.first ?? []) {
                        _ = try Self.writeSealedFile(
                            node, at: path, as: protection, in: root, dataProtection: dataProtection
                        ) { pieces.next() }
                    } else {
                        _ = try Self.writeFile(node, at: path, in: root) { pieces.next() }
                    }
                }
                return node.size
            }
            let blobs = blobs
            var ids = (node.chunks ?? []).makeIterator()
            // In a protected folder, the first blob tells a plain file from a protected one.
            var peeked: [UInt8]?
            if protection != nil, let id = ids.next() { peeked = try blobs.next(id) }
            let sealed = peeked.map(DataProtection.isSealed) ?? false
            let next = { () throws(SandboxError) -> [UInt8]? in
                if let piece = peeked {
                    peeked = nil
                    return piece
                }
                guard let id = ids.next() else { return nil }
                return try blobs.next(id)
            }
            if let protection, !sealed {
                return try Self.writeSealedFile(
                    node, at: path, as: protection, in: root, dataProtection: dataProtection, next)
            }
            return try Self.writeFile(node, at: path, in: root, next)
        }
    }

    /// Writes the file `node` at `path` sealed with `protection` (``/SandboxStore/DataProtection``,
    /// a stripe at a time) from the plaintext pieces `next` gives (`nil`: no more), checks its
    /// size, then gives it its other extended attributes, mode and times; returns the bytes of
    /// plaintext written.
    ///
    /// - Throws: `protected-data-unavailable` when the device locked since the restore began.
    private static func writeSealedFile(
        _ node: TreeNode, at path: ContainerPath, as protection: ProtectionClass, in root: ConfinedRoot,
        dataProtection: DataProtection, _ next: () throws(SandboxError) -> [UInt8]?
    ) throws(SandboxError) -> Int64 {
        var piece: [UInt8] = []
        var offset = 0
        let written = try dataProtection.writeSealed(protection, to: path, in: root, options: [.withoutOverwriting]) {
            (buffer) throws(SandboxError) in
            while offset == piece.count {
                do throws(SandboxError) {
                    guard let more = try next() else { return 0 }
                    piece = more
                    offset = 0
                } catch {
                    throw error
                }
            }
            let count = min(buffer.count, piece.count - offset)
            UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]).copyBytes(
                from: piece[offset..<offset + count])
            offset += count
            return count
        }
        guard written == node.size else { throw sizeMismatch(node, at: path, holding: written) }
        try setAttributes(node, at: path, in: root, sealedHere: true)
        return written
    }

    /// Gives the file at `path` the extended attributes, mode and times of `node`, by path; a file
    /// `sealedHere` keeps the class attribute its sealing set.
    private static func setAttributes(
        _ node: TreeNode, at path: ContainerPath, in root: ConfinedRoot, sealedHere: Bool
    ) throws(SandboxError) {
        try setExtendedAttributes(node, at: path, in: root, skipping: sealedHere ? ProtectionClass.attributeName : nil)
        try root.setPermissions(permissions(node), at: path)
        try setTimes(node, at: path, in: root)
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
        for path in layout where try !root.directoryExists(at: path) {
            try root.createDirectory(at: path, withIntermediateDirectories: true)
        }
        for (path, node) in directories.reversed() {
            try root.setPermissions(Self.permissions(node), at: path)
            try setTimes(node, at: path)
        }
        // Durable before the exchange publishes it: one syncfs(2) of the container's file system
        // for the whole restore.
        try root.synchronizeFileSystem()
    }

    /// The node's permission bits without set-user-ID and set-group-ID: a snapshot is data from
    /// the repository, and no app file needs them.
    static func permissions(_ node: TreeNode) -> FilePermissions {
        FilePermissions(rawValue: CInterop.Mode(node.mode & 0o1777))
    }

    private static func setExtendedAttributes(
        _ node: TreeNode, at path: ContainerPath, in root: ConfinedRoot, skipping skipped: String? = nil
    ) throws(SandboxError) {
        for (name, value) in node.extendedAttributes ?? [:] where name.hasPrefix("user.") && name != skipped {
            try root.setExtendedAttribute(named: name, to: Array(value), at: path)
        }
    }

    /// The access and modification times to give `node` (`utimensat(2)`'s two `timespec`s).
    private static func times(_ node: TreeNode) -> [timespec] {
        [
            node.accessed.map { timespec(tv_sec: Int($0.seconds), tv_nsec: Int($0.nanoseconds)) }
                ?? timespec(tv_sec: 0, tv_nsec: CSB_UTIME_OMIT),  // leave it
            timespec(tv_sec: Int(node.modified.seconds), tv_nsec: Int(node.modified.nanoseconds)),
        ]
    }

    private func setTimes(_ node: TreeNode, at path: ContainerPath) throws(SandboxError) {
        try Self.setTimes(node, at: path, in: root)
    }

    private static func setTimes(_ node: TreeNode, at path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        let parent = try root.openParent(of: path)
        var times = times(node)
        guard utimensat(parent.rawValue, parent.name.cString, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .systemCall("utimensat", errno: Errno(rawValue: errno), path: path.description)
        }
    }
}

extension DataProtection {
    /// Whether the file at `path` is not a protected file.
    fileprivate func isPlainFile(at path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> Bool {
        try protectionClass(of: path, in: root) == nil
    }
}
