import Glibc
import SandboxCore

/// A repository in a directory on this machine. Every access goes through one ``/SandboxCore/ConfinedRoot``:
/// writes through its atomic publisher (`O_TMPFILE` + `linkat`; durable as ``RepositoryStorage`` says), lists
/// through its directory reader.
public struct LocalRepositoryStorage: RepositoryStorage {
    let root: ConfinedRoot
    /// The largest object read (a chunk is at most 8 MiB; trees and manifests are split too).
    static let maximumObjectSize = 64 << 20
    /// How many calls the library makes at once (default 2: one waiting on the disk while another
    /// decrypts and hashes); at least 1.
    public var preferredConcurrency = 2 {
        didSet { preferredConcurrency = max(1, preferredConcurrency) }
    }

    /// The repository in the existing directory `hostPath`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` and ``/SandboxCore/SandboxError/Code/notADirectory``.
    public init(openingDirectoryAt hostPath: String) throws(SandboxError) {
        root = try ConfinedRoot(openingDirectoryAt: hostPath)
    }

    /// Makes (if missing) the directory `hostPath` and the folders of every object kind, including
    /// the 256 `data/` subfolders. The repository is private to its user, whatever the umask: its
    /// folders are `0700` and its objects `0600` (the core's modes), and an existing `hostPath`
    /// readable by others is made `0700`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/permissionDenied`` for a `hostPath` that is
    ///   not the user's, and the core's codes.
    public static func creatingLayout(atHostPath hostPath: String) throws(SandboxError) -> LocalRepositoryStorage {
        let root = try ConfinedRoot.creatingDirectory(atHostPath: hostPath)
        try root.makeDirectoryPrivate(at: .root)
        for kind in ObjectKind.allCases where kind != .config {
            try root.createDirectory(at: try ContainerPath(kind.rawValue), withIntermediateDirectories: true)
        }
        for byte in 0..<256 {
            let folder = try ContainerPath("data/" + Hex.string([UInt8(byte)]))
            try root.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return LocalRepositoryStorage(root: root)
    }

    private init(root: ConfinedRoot) {
        self.root = root
    }

    /// The repository directory's path, for messages.
    public var location: String { root.hostPath }

    func path(_ name: ObjectName) throws(SandboxError) -> ContainerPath {
        guard name.kind == .config || (!name.name.isEmpty && !name.name.contains("/") && !name.name.hasPrefix("."))
        else {
            throw SandboxError(.invalidArgument, "'\(name.name)' is not a repository object name.", path: name.name)
        }
        return try ContainerPath(name.description)
    }

    /// Stores `bytes` as `name` unless an object of that name exists.
    ///
    /// - Returns: whether the object was stored (`false`: it existed).
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    public func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        let path = try path(name)
        do {
            let durable: WriteOptions = name.kind == .data ? [] : .durable
            try root.writeContents(bytes, to: path, options: durable.union([.atomic, .withoutOverwriting]))
            return true
        } catch  where error.code == .alreadyExists {
            return false
        } catch  where error.code == .notFound && name.kind == .data {
            // A data folder removed by hand: make it again.
            try root.createDirectory(at: path.parent, withIntermediateDirectories: true)
            return try putIfAbsent(bytes, as: name)
        }
    }

    /// Stores `bytes` as `name`, replacing an object of that name.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    public func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) {
        try root.writeContents(bytes, to: try path(name), options: [.atomic, .durable])
    }

    /// The bytes of `name`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    ///   ``/SandboxCore/SandboxError/Code/fileTooLarge`` for an object past the size a repository object may have.
    public func get(_ name: ObjectName) throws(SandboxError) -> [UInt8] {
        try root.readContents(of: try path(name), maximumSize: Self.maximumObjectSize)
    }

    /// The bytes `range` of `name`, read with `pread` on one descriptor.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` when `range` ends past its end;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's or
    ///   a range past the size a repository object may have; the file system's other errors.
    public func get(_ name: ObjectName, range: Range<Int64>) throws(SandboxError) -> [UInt8] {
        guard range.lowerBound >= 0, range.count <= Self.maximumObjectSize else {
            throw SandboxError(
                .invalidArgument, "The range \(range) of '\(name)' is not one a repository object has.",
                path: name.description)
        }
        let file = try root.openFile(forReadingAt: try path(name))
        let size = try file.size()
        guard range.upperBound <= size else { throw name.rangePastEnd(range, size: size, in: location) }
        let bytes = try file.read(upToCount: range.count, atOffset: range.lowerBound).bytes
        guard bytes.count == range.count else { throw name.rangePastEnd(range, size: nil, in: location) }
        return bytes
    }

    /// The size of `name` in bytes, or `nil` when there is no such object.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    public func size(of name: ObjectName) throws(SandboxError) -> Int64? {
        try root.attributes(at: try path(name), followingSymlink: false)?.size
    }

    /// The objects of `kind`, in no particular order; interrupted writes are not listed.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    public func list(_ kind: ObjectKind) throws(SandboxError) -> [ObjectName] {
        switch kind {
        case .config:
            return try root.fileExists(at: try path(.config)) ? [.config] : []
        case .data:
            var names: [ObjectName] = []
            for folder in try root.subdirectoryNames(at: ContainerPath(constant: "data")) {
                let folderPath = try ContainerPath("data/" + folder)
                for file in try root.fileNames(at: folderPath) where Hex.isLowercase(file, count: 64) {
                    names.append(ObjectName(.data, file))
                }
            }
            return names
        default:
            return try root.fileNames(at: ContainerPath(kind.rawValue)).filter {
                !$0.hasPrefix(".") && !ConfinedRoot.isInterruptedWriteName($0)
            }.map { ObjectName(kind, $0) }
        }
    }

    /// `syncfs(2)` of the repository's file system: one call a backup, cheap next to an `fsync` an
    /// object, and only this file system (not every one of the machine, as `sync(2)`). The
    /// directory is reached through the descriptor the storage holds, never again by its path.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/io`` when the flush fails (a device error).
    public func synchronize() throws(SandboxError) {
        try root.synchronizeFileSystem()
    }

    /// Removes `name`; removing a missing object is not an error.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/noSpace`` and the file system's other errors.
    public func delete(_ name: ObjectName) throws(SandboxError) {
        do {
            _ = try root.removeItem(at: try path(name))
        } catch  where error.code == .notFound {
            return
        }
    }
}
