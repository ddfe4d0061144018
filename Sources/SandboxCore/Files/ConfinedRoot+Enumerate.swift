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
    ///   - inNameOrder: `false` (the default, the fastest) visits items in the order the file
    ///     system lists them; `true` in the order of their paths sorted (``ContainerPath``'s `<`:
    ///     name by name, each by bytes), holding one directory's names at a time per level instead
    ///     of the whole listing.
    ///   - body: called once per item; an error it throws ends the walk.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``,
    ///   ``SandboxError/Code/nameTooLong`` (see above), ``SandboxError/Code/concurrentModification``
    ///   when a directory is moved mid-walk, resolution errors, and what `body` throws.
    public func enumerate(
        at path: ContainerPath,
        recursive: Bool,
        prefetchingAttributes: Bool = false,
        stoppingAtPathLimit: Bool = false,
        inNameOrder: Bool = false,
        _ body: (DirectoryEntry) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        try list(
            at: path, recursive: recursive, prefetchingAttributes: prefetchingAttributes,
            stoppingAtPathLimit: stoppingAtPathLimit, order: inNameOrder ? .byName : .asRead
        ) { (item, location) throws(SandboxError) in
            // `list` checked the length: the path exists.
            guard let path = location.path(of: item.fileName) else { throw .beyondPathLimit(location.display()) }
            try body(
                DirectoryEntry(
                    path: path, type: item.type, attributes: item.attributes,
                    contentsBeyondPathLimit: item.contentsBeyondPathLimit))
        }
    }

    /// ``enumerate(at:recursive:prefetchingAttributes:stoppingAtPathLimit:inNameOrder:_:)`` without
    /// a ``ContainerPath`` per item: each item's name as the walk holds it and where the walk
    /// stands, for a listing that renders names itself (`sandbox ls`). Same rules and errors.
    package func list(
        at path: ContainerPath,
        recursive: Bool,
        prefetchingAttributes: Bool = false,
        stoppingAtPathLimit: Bool = false,
        order: TreeWalk.Order = .asRead,
        _ body: (ListedItem, borrowing WalkLocation) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let directory = try openDirectory(path)
        var walk = try TreeWalk(root: directory.rawValue, at: path, order: order)
        try withoutActuallyEscaping(body) { (body) throws(SandboxError) in
            var visitor = ListingVisitor(
                recursive: recursive, prefetch: prefetchingAttributes, stopAtLimit: stoppingAtPathLimit, body: body)
            try walk.run(&visitor)
        }
    }
}

/// One item met by ``ConfinedRoot/list(at:recursive:prefetchingAttributes:stoppingAtPathLimit:order:_:)``,
/// valid only during the call that receives it.
package struct ListedItem {
    /// The NUL-terminated name, byte for byte; it points into the walk's buffer (copy it with
    /// ``fileName`` to keep it).
    package let name: UnsafePointer<CChar>
    /// The name's length in bytes.
    package let nameLength: Int
    /// The type: from `d_type`, or from `statx` where the file system leaves it unknown.
    package let type: ItemType
    /// Resource values, when they were asked for.
    package let attributes: FileAttributes?
    /// As ``DirectoryEntry/contentsBeyondPathLimit``.
    package let contentsBeyondPathLimit: Bool

    /// The name, copied.
    package var fileName: FileName { FileName(listed: name) }
}

/// Resolves walk entries into ``ListedItem`` values: the type, the attributes asked for (one
/// `statx`), whether to descend.
private struct ListingVisitor: TreeVisitor {
    let recursive: Bool
    let prefetch: Bool
    let stopAtLimit: Bool
    let body: (ListedItem, borrowing WalkLocation) throws(SandboxError) -> Void

    func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        let length = strlen(entry.name)
        guard location.lengthOfChild(byteCount: length) <= ContainerPath.maximumLength else {
            throw .beyondPathLimit(location.display())
        }
        var type = ItemType(directoryEntryType: entry.type)
        var attributes: FileAttributes?
        if prefetch || type == .unknown {
            do throws(SandboxError) {
                attributes = try ConfinedRoot.statx(
                    entry.directory, entry.name, flags: CSB_AT_SYMLINK_NOFOLLOW,
                    path: location.path(of: entry.fileName)?.description ?? location.display(entry.fileName))
            } catch  where error.code == .notFound {
                return false  // removed since the directory was read
            }
            type = attributes?.type ?? type
        }
        let descend = recursive && type == .directory
        let tooDeep = descend && stopAtLimit && !location.childrenAlwaysFit(underNameOfLength: length)
        try body(
            ListedItem(
                name: entry.name, nameLength: length, type: type, attributes: prefetch ? attributes : nil,
                contentsBeyondPathLimit: tooDeep),
            location)
        return descend && !tooDeep
    }
}
