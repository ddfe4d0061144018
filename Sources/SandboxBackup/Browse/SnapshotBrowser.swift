import Foundation
import SandboxCore

/// Reads snapshots without restoring them: list an app's items, compare two snapshots, stream a
/// file's bytes. A tree is data from the repository, so every reader checks it as a restore does
/// (plain paths inside the container, named once, parents first as folders) and
/// every blob against its id; a forged tree is ``SandboxCore/SandboxError/Code/repositoryDamaged``.
///
/// Each call holds the repository's shared lock, so no prune removes what it reads.
public enum SnapshotBrowser {
    /// The items of `app` in `snapshot` beneath `path` (the whole container when `nil`): a folder's
    /// children (all its descendants with `recursive`), or the item itself when it is a file or a
    /// symlink, in path order.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the snapshot has no such app or
    ///   item; ``/SandboxCore/SandboxError/Code/invalidPath`` for a path with `..`,
    ///   ``/SandboxCore/SandboxError/Code/escapesContainer`` for an absolute one;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a forged tree or a damaged blob;
    ///   ``SandboxCore/SandboxError/Code/repositoryLocked`` while a prune runs.
    public static func list(
        _ snapshot: Snapshot, app: String, path: String?, recursive: Bool = false, from repository: Repository
    ) async throws(SandboxError) -> [SnapshotEntry] {
        try await OwnedThread.run(name: "sandbox-browse") { () throws(SandboxError) in
            try list(snapshot, app: app, path: path, recursive: recursive, from: repository)
        }
    }

    /// ``list(_:app:path:recursive:from:)`` on the calling thread, which it blocks.
    package static func list(
        _ snapshot: Snapshot, app: String, path: String?, recursive: Bool = false, from repository: Repository
    ) throws(SandboxError) -> [SnapshotEntry] {
        let base = try path.map { (text) throws(SandboxError) in try itemPath(text) } ?? .root
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "list")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let items = try checkedItems(of: app, in: snapshot, from: repository)
        if !base.isRoot {
            guard let item = items.first(where: { $0.path == base }) else { throw missing(base, app, snapshot) }
            if item.node.kind != .directory { return [SnapshotEntry(base.description, item.node)] }
        }
        return
            items
            .filter {
                recursive
                    ? $0.path.isDescendant(of: base) && $0.path != base : $0.path.parent == base && !$0.path.isRoot
            }
            .sorted { $0.path < $1.path }
            .map { SnapshotEntry($0.path.description, $0.node) }
    }

    /// What changed from snapshot `first` to `second`, app by app, in path order: items added,
    /// removed, or modified (other contents, kind, mode or link target).
    ///
    /// - Throws: as ``list(_:app:path:recursive:from:)``.
    public static func diff(
        _ first: Snapshot, _ second: Snapshot, from repository: Repository
    ) async throws(SandboxError)
        -> [SnapshotChange]
    {
        try await OwnedThread.run(name: "sandbox-browse") { () throws(SandboxError) in
            try diff(first, second, from: repository)
        }
    }

    /// ``diff(_:_:from:)`` on the calling thread, which it blocks.
    package static func diff(
        _ first: Snapshot, _ second: Snapshot, from repository: Repository
    ) throws(SandboxError)
        -> [SnapshotChange]
    {
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "diff")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let apps = Set(first.record.parts.map(\.app)).union(second.record.parts.map(\.app)).sorted()
        var changes: [SnapshotChange] = []
        for app in apps {
            let before = try nodesByPath(of: app, in: first, from: repository)
            let after = try nodesByPath(of: app, in: second, from: repository)
            for path in Set(before.keys).union(after.keys).sorted() {
                let old = before[path]
                let new = after[path]
                let change: SnapshotChange.Kind
                switch (old, new) {
                case (nil, _): change = .added
                case (_, nil): change = .removed
                case (let old?, let new?):
                    guard
                        old.kind != new.kind || old.mode != new.mode || old.size != new.size
                            || old.chunks != new.chunks || old.target != new.target || old.hardLinkTo != new.hardLinkTo
                    else { continue }
                    change = .modified
                }
                changes.append(
                    SnapshotChange(
                        app: app, path: path.description, change: change, sizeBefore: old?.size, sizeAfter: new?.size))
            }
        }
        return changes
    }

    /// Writes the contents of the file `path` of `app` in `snapshot` to `fd`, one blob at a time
    /// (memory stays at one chunk however large the file), each checked against its id before
    /// any of it is written.
    ///
    /// - Returns: the bytes written.
    /// - Throws: ``/SandboxCore/SandboxError/Code/isADirectory`` for a folder, naming the listing
    ///   to use; ``/SandboxCore/SandboxError/Code/invalidArgument`` for a symlink, naming its
    ///   target; as ``list(_:app:path:recursive:from:)``; the write's errors.
    public static func dump(
        _ snapshot: Snapshot, app: String, path: String, from repository: Repository, to fd: CInt
    ) async throws(SandboxError) -> Int64 {
        try await OwnedThread.run(name: "sandbox-browse") { () throws(SandboxError) in
            try dump(snapshot, app: app, path: path, from: repository, to: fd)
        }
    }

    /// ``dump(_:app:path:from:to:)`` on the calling thread, which it blocks.
    package static func dump(
        _ snapshot: Snapshot, app: String, path: String, from repository: Repository, to fd: CInt
    ) throws(SandboxError) -> Int64 {
        let item = try itemPath(path)
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "dump")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let node = try fileNode(at: item, of: app, in: snapshot, from: repository)
        var written: Int64 = 0
        for id in node.chunks ?? [] {
            try lock.refreshIfDue()
            let bytes = try repository.loadBlob(id)
            try bytes.withBytes { (buffer) throws(SandboxError) in
                try FullWrite.write(buffer, to: fd, path: "standard output")
            }
            written += Int64(bytes.count)
        }
        return written
    }

    /// The sizes of `snapshots` (by id): the bytes each holds, and the bytes of blobs it was the
    /// first (oldest) of them to refer to. Reads every tree once.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a damaged tree or index;
    ///   ``SandboxCore/SandboxError/Code/repositoryLocked`` while a prune runs.
    public static func sizes(
        of snapshots: [Snapshot], from repository: Repository
    ) async throws(SandboxError)
        -> [String: SnapshotSizes]
    {
        try await OwnedThread.run(name: "sandbox-browse") { () throws(SandboxError) in
            try sizes(of: snapshots, from: repository)
        }
    }

    /// ``sizes(of:from:)`` on the calling thread, which it blocks.
    package static func sizes(
        of snapshots: [Snapshot], from repository: Repository
    ) throws(SandboxError)
        -> [String: SnapshotSizes]
    {
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "snapshots")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        repository.forgetIndex()  // a prune may have changed it since it was loaded
        let index = try repository.loadedIndex()
        if let unreadable = index.unreadable { throw unreadable }
        var seen: Set<String> = []
        var result: [String: SnapshotSizes] = [:]
        for snapshot in snapshots.sorted(by: { RetentionPolicy.newerFirst($1, $0) }) {
            var added: Int64 = 0
            func refer(_ ids: some Sequence<String>) {
                for id in ids where seen.insert(id).inserted {
                    added += Int64(BlobKey(hex: id).flatMap { index.blobs.location(of: $0) }?.uncompressedLength ?? 0)
                }
            }
            for part in snapshot.record.parts {
                refer(part.tree)
                refer(part.manifest)
                refer(part.keychain?.split(separator: ",").map(String.init) ?? [])
                for node in try SnapshotTree.nodes(of: part, in: snapshot, from: repository) {
                    refer(node.chunks ?? [])
                }
            }
            result[snapshot.id] = SnapshotSizes(
                total: snapshot.record.parts.reduce(0) { $0 + $1.bytes }, added: added)
        }
        return result
    }

    /// A path into a snapshot, as a person gives it: relative to the container's home, without `..`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/escapesContainer`` for an absolute path or a NUL;
    ///   ``/SandboxCore/SandboxError/Code/invalidPath`` for an empty path or one with `..` (a
    ///   snapshot has no links to resolve it through: give the path without it).
    package static func itemPath(_ text: String) throws(SandboxError) -> ContainerPath {
        let path = try ContainerPath(text)
        guard !path.names.contains(where: \.isParentReference) else {
            throw SandboxError(
                .invalidPath,
                "The path '\(text)' has a '..'; a path in a snapshot is read as written, from the container's home. Give it without '..'.",
                path: text)
        }
        return path
    }

    /// The node holding the contents of the file `item` of `app` in `snapshot` (a hard link's
    /// first name's), from the checked tree.
    ///
    /// - Throws: as ``dump(_:app:path:from:to:)``.
    static func fileNode(
        at item: ContainerPath, of app: String, in snapshot: Snapshot, from repository: Repository
    ) throws(SandboxError) -> TreeNode {
        let items = try checkedItems(of: app, in: snapshot, from: repository)
        guard var node = items.first(where: { $0.path == item })?.node else { throw missing(item, app, snapshot) }
        switch node.kind {
        case .directory:
            throw SandboxError(
                .isADirectory,
                "'\(item)' is a folder in snapshot \(snapshot.shortID) of '\(app)'; only a file's bytes can be written out. List the folder to find the file meant.",
                path: item.description)
        case .symlink:
            throw SandboxError(
                .invalidArgument,
                "'\(item)' is a symbolic link in snapshot \(snapshot.shortID) of '\(app)' (to '\(node.target.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? "")'); links are not followed. Give the path of the file itself.",
                path: item.description)
        case .file:
            break
        }
        if let first = node.hardLinkTo {
            let firstPath = try RestorePath.path(of: first)
            guard let shared = items.first(where: { $0.path == firstPath })?.node else {
                throw missing(item, app, snapshot)
            }
            node = shared
        }
        return node
    }

    /// The checked items of `app` in `snapshot` (a forged tree is refused as a restore refuses it).
    static func checkedItems(
        of app: String, in snapshot: Snapshot, from repository: Repository
    ) throws(SandboxError)
        -> [(path: ContainerPath, node: TreeNode)]
    {
        let part = try SnapshotTree.part(of: app, in: snapshot, includingGroups: true)
        return try RestorePlan(try SnapshotTree.nodes(of: part, in: snapshot, from: repository)).items
    }

    /// The checked items of `app` by path; none when the snapshot does not hold the app.
    private static func nodesByPath(
        of app: String, in snapshot: Snapshot, from repository: Repository
    )
        throws(SandboxError) -> [ContainerPath: TreeNode]
    {
        guard snapshot.record.parts.contains(where: { $0.app == app }) else { return [:] }
        return Dictionary(
            try checkedItems(of: app, in: snapshot, from: repository).map { ($0.path, $0.node) },
            uniquingKeysWith: { first, _ in first })
    }

    private static func missing(_ path: ContainerPath, _ app: String, _ snapshot: Snapshot) -> SandboxError {
        SandboxError(
            .notFound,
            "The snapshot \(snapshot.shortID) holds no '\(path)' of '\(app)' (not backed up, excluded, or beneath a symbolic link). List the snapshot's folder to see what it holds.",
            path: path.description)
    }
}
