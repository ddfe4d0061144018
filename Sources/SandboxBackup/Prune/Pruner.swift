import Foundation
import SandboxCore

/// What ``Pruner/prune(_:keepingLast:)`` did.
public struct PruneReport: Sendable, Hashable, Codable {
    /// Snapshots that remain.
    public var snapshotsKept: Int
    /// Snapshots removed.
    public var snapshotsRemoved: Int
    /// Blobs no remaining snapshot refers to, removed.
    public var blobsRemoved: Int
    /// Bytes of the objects removed, as stored.
    public var bytesRemoved: Int64
}

/// Removes all but the newest snapshots, then the blobs no remaining snapshot refers to.
///
/// Holds the repository's exclusive lock, so it never runs alongside a backup (whose new blobs no
/// snapshot refers to yet), and is refused while a check or a restore holds a shared lock (it
/// could remove the snapshot being read). Order: snapshot records first, then a new index of what stays, then
/// old indexes and unreferenced blobs; killed at any moment, every remaining snapshot still
/// restores (at worst some unreferenced blobs remain, for the next prune).
public enum Pruner {
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` while a backup, prune, check or
    ///   restore runs;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` when a kept snapshot's tree cannot be
    ///   read (nothing is removed then: its blobs might be removed wrongly).
    ///
    /// The work runs on a thread of its own (the repository's requests block); the task awaits it.
    ///
    /// - Parameters:
    ///   - repository: the repository to prune.
    ///   - count: how many of the newest snapshots to keep (at least 1, else
    ///     ``/SandboxCore/SandboxError/Code/invalidArgument``).
    public static func prune(_ repository: Repository, keepingLast count: Int) async throws(SandboxError) -> PruneReport
    {
        try await OwnedThread.run(name: "sandbox-prune") { () throws(SandboxError) in
            try prune(repository, keepingLast: count)
        }
    }

    /// ``prune(_:keepingLast:)`` on the calling thread, which it blocks.
    package static func prune(_ repository: Repository, keepingLast count: Int) throws(SandboxError) -> PruneReport {
        guard count >= 1 else {
            throw SandboxError(.invalidArgument, "--keep-last must be at least 1 (it was \(count)).")
        }
        let lock = try RepositoryLock.acquireForPrune(repository.storage)
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next run takes over
        let all = try repository.snapshots()
        let kept = Array(all.suffix(count))
        let removed = all.dropLast(kept.count)
        var referenced: Set<String> = []
        for snapshot in kept {
            for part in snapshot.record.apps {
                referenced.formUnion(part.tree)
                referenced.formUnion(part.manifest)
                referenced.formUnion(part.keychain?.split(separator: ",").map(String.init) ?? [])
                let nodes: [TreeNode]
                do {
                    nodes = try JSONDecoder.repository.decode(
                        [TreeNode].self, from: Data(try repository.loadSplit(part.tree)))
                } catch let error as SandboxError {
                    throw error
                } catch {
                    throw SandboxError(
                        .repositoryDamaged,
                        "The tree of '\(part.app)' in snapshot \(snapshot.shortID) cannot be decoded (\(error)); nothing was pruned."
                    )
                }
                for node in nodes { referenced.formUnion(node.chunks ?? []) }
            }
        }
        for snapshot in removed { try repository.storage.delete(ObjectName(.snapshot, snapshot.id)) }
        let oldIndexes = try repository.storage.list(.index)
        var keptBlobs: [String: Int] = [:]
        var report = PruneReport(
            snapshotsKept: kept.count, snapshotsRemoved: removed.count, blobsRemoved: 0, bytesRemoved: 0)
        var doomed: [ObjectName] = []
        for name in try repository.storage.list(.data) {
            if referenced.contains(name.name) {
                keptBlobs[name.name] = Int(try repository.storage.size(of: name) ?? 0)
            } else {
                doomed.append(name)
            }
        }
        let newIndex = try repository.storeRecord(IndexRecord(blobs: keptBlobs), kind: .index)
        for name in oldIndexes where name.name != newIndex { try repository.storage.delete(name) }
        for name in doomed {
            try lock.refreshIfDue()
            report.bytesRemoved += try repository.storage.size(of: name) ?? 0
            try repository.storage.delete(name)
            report.blobsRemoved += 1
        }
        return report
    }
}
