import CSandboxShims
import Glibc

extension ConfinedRoot {
    /// Visits the items beneath the directory at `path`, each directory before its contents, with
    /// `getdents64` and the entries' `d_type`; `statx` only where the type is unknown or attributes
    /// are asked for. Symlinks are reported, never followed. Names are kept byte for byte: an item
    /// whose name is not valid UTF-8 is visited like any other.
    ///
    /// The walk keeps its own stack and a bounded number of open directories, so any depth is
    /// walked; but a ``ContainerPath`` is at most 4095 bytes, so items deeper than that cannot be
    /// reported.
    ///
    /// - Parameters:
    ///   - path: the directory to walk, relative to the root (``ContainerPath/root`` for the root
    ///     itself).
    ///   - recursive: also visit the contents of subdirectories.
    ///   - prefetchingAttributes: fill in ``DirectoryEntry/attributes`` for every item.
    ///   - stoppingAtPathLimit: `false` (the default) fails with ``SandboxError/Code/nameTooLong``
    ///     on reaching an item too deep to be named; `true` instead reports a directory whose
    ///     contents might not all be nameable with ``DirectoryEntry/contentsBeyondPathLimit`` set,
    ///     and does not descend into it.
    ///   - body: called once per item; an error it throws ends the walk.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/nameTooLong`` (see above), ``SandboxError/Code/concurrentModification``
    ///   when a directory is moved mid-walk, resolution errors, and what `body` throws.
    public func enumerate(
        at path: ContainerPath,
        recursive: Bool,
        prefetchingAttributes: Bool = false,
        stoppingAtPathLimit: Bool = false,
        _ body: (DirectoryEntry) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let directory = try openDirectory(path)
        var walk = try TreeWalk(root: directory.rawValue, at: path)
        try withoutActuallyEscaping(body) { (body) throws(SandboxError) in
            var visitor = EnumerationVisitor(
                recursive: recursive, prefetch: prefetchingAttributes, stopAtLimit: stoppingAtPathLimit, body: body)
            try walk.run(&visitor)
        }
    }
}

/// Turns walk entries into ``DirectoryEntry`` values.
private struct EnumerationVisitor: TreeVisitor {
    let recursive: Bool
    let prefetch: Bool
    let stopAtLimit: Bool
    let body: (DirectoryEntry) throws(SandboxError) -> Void

    func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        let name = entry.fileName
        guard let path = location.path(of: name) else {
            throw .beyondPathLimit(location.display())
        }
        var type = ItemType(directoryEntryType: entry.type)
        var attributes: FileAttributes?
        if prefetch || type == .unknown {
            do throws(SandboxError) {
                attributes = try ConfinedRoot.statx(
                    entry.directory, entry.name, flags: CSB_AT_SYMLINK_NOFOLLOW, path: path.description)
            } catch  where error.code == .notFound {
                return false  // removed since the directory was read
            }
            type = attributes?.type ?? type
        }
        let descend = recursive && type == .directory
        let tooDeep = descend && stopAtLimit && !location.childrenAlwaysFit(under: name)
        try body(
            DirectoryEntry(
                path: path, type: type, attributes: prefetch ? attributes : nil, contentsBeyondPathLimit: tooDeep))
        return descend && !tooDeep
    }
}
