import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Creates a directory at `path`.
    ///
    /// - Parameters:
    ///   - path: the directory to create, relative to the root.
    ///   - withIntermediateDirectories: also create missing parents, and succeed if a directory
    ///     already exists at `path` (like `mkdir -p`).
    ///   - permissions: the mode, less the process's umask; private to the owner (`0700`,
    ///     `FilePermissions.privateDirectory`) by default.
    /// - Returns: how many directories were created (0 when all existed).
    /// - Throws: ``SandboxError/Code/alreadyExists`` (without intermediates),
    ///   ``SandboxError/Code/notFound`` for a missing parent, ``SandboxError/Code/notADirectory``
    ///   when a file is in the way, and resolution errors such as ``SandboxError/Code/escapesContainer``.
    @discardableResult
    public func createDirectory(
        at path: ContainerPath,
        withIntermediateDirectories: Bool = false,
        permissions: FilePermissions = .privateDirectory
    ) throws(SandboxError) -> Int {
        guard withIntermediateDirectories else {
            let parent = try openParent(of: path)
            let name = parent.name.cString
            _ = try syscall("mkdirat", path: path.description) { mkdirat(parent.rawValue, name, permissions.rawValue) }
            return 1
        }
        var created = 0
        var prefix = ContainerPath.root
        for name in path.components {
            prefix = prefix.appendingTrusted(name)
            if name == ".." { continue }
            let parent = try openParent(of: prefix)
            if mkdirat(parent.rawValue, name, permissions.rawValue) == 0 {
                created += 1
                continue
            }
            let error = Errno(rawValue: errno)
            guard error == .fileExists else { throw .systemCall("mkdirat", errno: error, path: prefix.description) }
            guard try directoryExists(at: prefix) else {
                throw .rule(
                    .notADirectory,
                    "'\(prefix)' exists and is not a directory, so '\(path)' cannot be created. Remove or rename it first.",
                    path: prefix.description)
            }
        }
        return created
    }

    /// The items inside the directory at `path`, in no particular order.
    ///
    /// - Parameters:
    ///   - path: the directory to list, relative to the root (``ContainerPath/root`` for the root
    ///     itself).
    ///   - recursive: also list everything beneath, each directory before its contents.
    ///   - prefetchingAttributes: also read every item's resource values (one `statx` each), as iOS
    ///     does when asked for keys up front.
    ///   - stoppingAtPathLimit: as for
    ///     ``enumerate(at:recursive:prefetchingAttributes:stoppingAtPathLimit:inNameOrder:_:)``: report a
    ///     directory too deep to list with ``DirectoryEntry/contentsBeyondPathLimit`` rather than
    ///     fail.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/nameTooLong`` for items too deep to be named (unless
    ///   `stoppingAtPathLimit`), and resolution errors.
    public func contentsOfDirectory(
        at path: ContainerPath,
        recursive: Bool = false,
        prefetchingAttributes: Bool = false,
        stoppingAtPathLimit: Bool = false
    ) throws(SandboxError) -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        try enumerate(
            at: path, recursive: recursive, prefetchingAttributes: prefetchingAttributes,
            stoppingAtPathLimit: stoppingAtPathLimit
        ) { entry throws(SandboxError) in
            entries.append(entry)
        }
        return entries
    }

    /// The names of the directories directly inside `path` (symlinks are not followed).
    public func subdirectoryNames(at path: ContainerPath) throws(SandboxError) -> [String] {
        try contentsOfDirectory(at: path).filter { $0.type == .directory }.map(\.name)
    }

    /// The paths of the directories directly inside `path`.
    public func subdirectoryPaths(at path: ContainerPath) throws(SandboxError) -> [ContainerPath] {
        try contentsOfDirectory(at: path).filter { $0.type == .directory }.map(\.path)
    }

    /// The names of the regular files directly inside `path`.
    public func fileNames(at path: ContainerPath) throws(SandboxError) -> [String] {
        try contentsOfDirectory(at: path).filter { $0.type == .regular }.map(\.name)
    }

    /// The paths of the regular files directly inside `path`.
    public func filePaths(at path: ContainerPath) throws(SandboxError) -> [ContainerPath] {
        try contentsOfDirectory(at: path).filter { $0.type == .regular }.map(\.path)
    }
}
