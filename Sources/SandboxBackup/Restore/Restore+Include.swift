import Foundation
import Glibc
import Logging
import Sandbox
import SandboxCore
import SandboxStore

extension Restore {
    /// The start of the name of the hidden folder an item is built in, beside the live item; then
    /// the restoring process's id and a random token.
    static let itemStagePrefix = ".sandbox-restore-"

    /// Restores only `items` of `app` (files or folders, paths relative to the container's home)
    /// from `snapshot`; the rest of the container, and the keychain, stay as they are.
    ///
    /// Each item is built in a hidden folder inside the live item's own folder, then published with
    /// one `renameat2` — an exchange with the live item, or a rename where there is none — so a
    /// failed or killed restore leaves each item old or new, never a mix. The live users are
    /// coordinated as for a restore, around the exchanges only: they let go, then reopen what they
    /// hold (the share its `Documents`, a watcher its folder), since a replaced folder is a new one.
    ///
    /// Checked before anything changes: every path is a plain one (as browsing takes it: no `..`,
    /// not absolute, not the container itself), the snapshot holds it, and no folder on its way in
    /// the live container is a symbolic link (the kernel refuses one planted later too). Files of
    /// a protected folder are sealed with its class, as a full restore writes them.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidPath`` for a path with `..` or the
    ///   container itself; ``/SandboxCore/SandboxError/Code/escapesContainer`` for an absolute
    ///   path; ``/SandboxCore/SandboxError/Code/notFound`` when the snapshot lacks an item or the
    ///   app; ``/SandboxCore/SandboxError/Code/notADirectory`` when a live folder on an item's way
    ///   is a symbolic link or a file; ``/SandboxCore/SandboxError/Code/interrupted`` when the
    ///   container was replaced meanwhile; `container-in-use` as for a restore; as
    ///   ``run(app:snapshot:from:into:logger:progress:)`` otherwise. Nothing is changed then.
    public static func run(
        app: AppIdentifier, snapshot: Snapshot, including items: [String], from repository: Repository,
        into home: SandboxHome, logger: Logger = Restore.disabledLogger
    ) async throws(SandboxError) -> RestoreReport {
        try await OwnedThread.run(name: "sandbox-restore") { () throws(SandboxError) in
            try run(app: app, snapshot: snapshot, including: items, from: repository, into: home, logger: logger)
        }
    }

    /// ``run(app:snapshot:including:from:into:logger:)`` on the calling thread, which it blocks.
    package static func run(
        app: AppIdentifier, snapshot: Snapshot, including items: [String], from repository: Repository,
        into home: SandboxHome, logger: Logger = .discarding
    ) throws(SandboxError) -> RestoreReport {
        let paths = try includedPaths(items)
        let container = try home.container(for: app)
        try home.requireNoRefusal(of: .restore, for: app)
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "restore")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let part = try SnapshotTree.part(of: app.rawValue, in: snapshot)
        let plan = try RestorePlan(try SnapshotTree.nodes(of: part, in: snapshot, from: repository))
        let dataProtection = DataProtection(home: home)
        // Every symlink on the way refused by the kernel, one planted after the checks too.
        let live = try container.root.openSubroot(at: .root, refusingSymlinks: true)
        var subtrees: [RestorePlan] = []
        for path in paths {
            try requireFolders(on: path, in: live, app: app)
            let parentProtection =
                try live.directoryExists(at: path.parent)
                ? try dataProtection.defaultProtection(forDirectoryAt: path.parent, in: live)
                : plan.protectedFolders[path.parent]
            let subtree = try plan.subtree(at: path, parentProtection: parentProtection)
            try subtree.requireWritableClasses(dataProtection)
            subtrees.append(subtree)
        }
        var staged: [StagedItem] = []
        var notes: [String] = []
        do throws(SandboxError) {
            for (path, subtree) in zip(paths, subtrees) {
                staged.append(
                    try stage(
                        subtree, for: path, in: live, blobsFrom: repository, lock: lock, dataProtection: dataProtection)
                )
            }
            try home.coordinating(.restore, of: app) { () throws(SandboxError) in
                let current = try home.container(for: app).root.openSubroot(at: .root, refusingSymlinks: true)
                for item in staged { try item.publish(checkingAgainst: current) }
            }
        } catch {
            for item in staged { item.remove(logger) }
            throw error
        }
        for item in staged where !item.remove(logger) {
            notes.append(
                "The replaced '\(item.path)' could not be removed from '\(item.parent.displayPath(of: item.stage))'; the next restore of an item there removes it."
            )
        }
        return RestoreReport(
            snapshot: snapshot.id, app: app.rawValue, files: subtrees.reduce(0) { $0 + $1.items.count },
            bytes: subtrees.reduce(0) { $0 + $1.contentBytes }, keychainItems: nil, notes: notes)
    }

    /// The paths of `items`, checked as browsing checks them, with those inside another left out.
    static func includedPaths(_ items: [String]) throws(SandboxError) -> [ContainerPath] {
        var paths: [ContainerPath] = []
        for text in items {
            let path = try SnapshotBrowser.itemPath(text)
            guard !path.isRoot else {
                throw SandboxError(
                    .invalidPath,
                    "'\(text)' names the whole container; give the files or folders to restore, or restore the whole container.",
                    path: text)
            }
            paths.append(path)
        }
        guard !paths.isEmpty else {
            throw SandboxError(
                .invalidArgument, "No item to restore was given; give the paths of the files or folders.")
        }
        var kept: [ContainerPath] = []
        for path in paths.sorted() where !kept.contains(where: { path.isDescendant(of: $0) }) { kept.append(path) }
        return kept
    }

    /// Refuses a folder on the way to `path` in the live container that is a symbolic link or not
    /// a folder; folders missing there are made when the item is staged.
    private static func requireFolders(
        on path: ContainerPath, in live: ConfinedRoot, app: AppIdentifier
    ) throws(SandboxError) {
        var folder = ContainerPath.root
        for name in path.names.dropLast() {
            folder = folder.appending(name)
            guard let attributes = try live.attributes(at: folder, followingSymlink: false) else { return }
            guard attributes.type == .directory else {
                throw SandboxError(
                    .notADirectory,
                    "'\(folder)' in the container of '\(app)' is a \(attributes.type == .symlink ? "symbolic link" : "file"), not a folder, so '\(path)' cannot be restored beneath it (a restore never writes through a link); nothing was restored. Remove it, or restore the whole container.",
                    path: folder.description)
            }
        }
    }

    /// Builds `subtree` (the item at `path`) in a new hidden folder beside the live item.
    private static func stage(
        _ subtree: RestorePlan, for path: ContainerPath, in live: ConfinedRoot, blobsFrom repository: Repository,
        lock: RepositoryLock, dataProtection: DataProtection
    ) throws(SandboxError) -> StagedItem {
        if !path.parent.isRoot { try live.createDirectory(at: path.parent, withIntermediateDirectories: true) }
        let parent = try live.openSubroot(at: path.parent, refusingSymlinks: true)
        try StagedItem.sweep(in: parent)
        let stage = ContainerPath.root.appendingTrusted("\(itemStagePrefix)\(getpid())-\(RandomToken.make())")
        try parent.createDirectory(at: stage)  // private (0700)
        let item = StagedItem(path: path, parent: parent, stage: stage)
        do throws(SandboxError) {
            if let protection = subtree.protectedFolders[.root] {
                try dataProtection.setDefaultProtection(protection, forDirectoryAt: stage, in: parent)
            }
            let stageRoot = try parent.openSubroot(at: stage, refusingSymlinks: true)
            let blobs = BlobPrefetcher(ids: subtree.contentIDs, repository: repository)
            defer { blobs.stop() }
            let files = FileWritePool()
            defer { files.stop() }
            var writer = TreeWriter(
                root: stageRoot, blobs: blobs, files: files, dataProtection: dataProtection, layout: subtree.layout)
            for (itemPath, node) in subtree.items {
                try lock.refreshIfDue()
                _ = try writer.write(node, at: itemPath)
            }
            try writer.finish()
        } catch {
            item.remove(.discarding)
            throw error
        }
        return item
    }
}

extension RestorePlan {
    /// The bytes of file contents the plan writes.
    var contentBytes: Int64 {
        items.reduce(0) { $0 + ($1.node.kind == .file && $1.node.hardLinkTo == nil ? $1.node.size : 0) }
    }
}
