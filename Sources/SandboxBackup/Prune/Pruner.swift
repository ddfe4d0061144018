import Foundation
import SandboxCore

/// What ``Pruner/prune(_:policy:dryRun:timeZone:repacking:)`` did (or, with `dryRun`, would do).
public struct PruneReport: Sendable, Hashable, Codable {
    /// Snapshots that remain.
    public var snapshotsKept: Int
    /// Snapshots removed.
    public var snapshotsRemoved: Int
    /// Blobs no remaining snapshot refers to, removed (0 in a dry run).
    public var blobsRemoved: Int
    /// Bytes of the objects removed, as stored (0 in a dry run).
    public var bytesRemoved: Int64
    /// Whether nothing was removed: the report says what a prune would remove (and repack).
    public var dryRun: Bool = false
    /// Packs rewritten because too much of them was unused (or small), their used blobs copied
    /// into new packs (what would be, in a dry run).
    public var packsRepacked: Int = 0
    /// The stored bytes of the used blobs copied from those packs.
    public var bytesRepacked: Int64 = 0
    /// Loose blobs (formats 1–3) copied into packs.
    public var looseBlobsPacked: Int = 0
    /// New packs written (0 in a dry run).
    public var packsWritten: Int = 0
    /// The bytes of blobs no snapshot uses left in the packs kept (under the ``RepackPolicy``).
    public var unusedBytesLeft: Int64 = 0
    /// Every snapshot, group by group, newest first: kept (and by which rules) or removed.
    public var snapshots: [PruneDecision] = []
}

/// One snapshot in a ``PruneReport``.
public struct PruneDecision: Sendable, Hashable, Codable {
    /// The snapshot's id.
    public var id: String
    /// When it was taken.
    public var time: Date
    /// The host it was taken on.
    public var host: String
    /// The apps it holds: with the host, its group.
    public var apps: [String]
    /// Whether the policy keeps it.
    public var kept: Bool
    /// The rules that keep it (`last snapshot`, `daily snapshot`, `within 2d3h`, …); empty when removed.
    public var reasons: [String]
}

/// Removes the snapshots a ``RetentionPolicy`` does not keep, then the blobs no remaining snapshot
/// refers to, rewriting the packs of which too much is unused (``RepackPolicy``).
///
/// Holds the repository's exclusive lock, so it never runs alongside a backup (whose new blobs no
/// snapshot refers to yet), and is refused while a check or a restore holds a shared lock (it
/// could remove the snapshot being read). Order: snapshot records first, then the new packs
/// (durable), then a new index of what stays, then old indexes, then the packs rewritten and
/// unreferenced blobs; killed at any moment, every remaining snapshot still restores (at worst
/// some unreferenced blobs or packs no index lists remain, for the next prune).
public enum Pruner {
    /// Keeps the newest `count` snapshots of each group (``RetentionPolicy/last``).
    ///
    /// - Throws: as ``prune(_:policy:dryRun:timeZone:repacking:)``; ``/SandboxCore/SandboxError/Code/invalidArgument``
    ///   for a count under 1.
    public static func prune(_ repository: Repository, keepingLast count: Int) async throws(SandboxError) -> PruneReport
    {
        try await prune(repository, policy: RetentionPolicy(last: count))
    }

    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` while a backup, prune, check or
    ///   restore runs (not for a dry run, which takes no lock);
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a policy without a rule or with a
    ///   negative count (nothing is removed);
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` when a kept snapshot's tree cannot be
    ///   read (nothing is removed then: its blobs might be removed wrongly).
    ///
    /// The work runs on a thread of its own (the repository's requests block); the task awaits it.
    ///
    /// - Parameters:
    ///   - repository: the repository to prune.
    ///   - policy: which snapshots to keep.
    ///   - dryRun: only say what would be removed; read the snapshots and change nothing.
    ///   - timeZone: the zone of the policy's days, weeks, months and years.
    ///   - repacking: which partly used packs are rewritten.
    public static func prune(
        _ repository: Repository, policy: RetentionPolicy, dryRun: Bool = false, timeZone: TimeZone = .current,
        repacking: RepackPolicy = RepackPolicy()
    ) async throws(SandboxError) -> PruneReport {
        try await OwnedThread.run(name: "sandbox-prune") { () throws(SandboxError) in
            try prune(repository, policy: policy, dryRun: dryRun, timeZone: timeZone, repacking: repacking)
        }
    }

    /// ``prune(_:keepingLast:)`` on the calling thread, which it blocks.
    package static func prune(_ repository: Repository, keepingLast count: Int) throws(SandboxError) -> PruneReport {
        try prune(repository, policy: RetentionPolicy(last: count))
    }

    /// ``prune(_:policy:dryRun:timeZone:repacking:)`` on the calling thread, which it blocks.
    package static func prune(
        _ repository: Repository, policy: RetentionPolicy, dryRun: Bool = false, timeZone: TimeZone = .current,
        repacking: RepackPolicy = RepackPolicy()
    ) throws(SandboxError) -> PruneReport {
        try policy.validate()
        if dryRun {
            let groups = policy.apply(to: try repository.snapshots(), timeZone: timeZone)
            var report = report(groups, dryRun: true)
            let plan = try plan(repository, keeping: groups, repacking: repacking).plan
            describe(plan, in: &report)
            return report
        }
        let lock = try RepositoryLock.acquireForPrune(repository.storage)
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next run takes over
        let groups = policy.apply(to: try repository.snapshots(), timeZone: timeZone)
        var report = report(groups, dryRun: false)
        // Each step's deletions run several at a time (the storage's concurrency) and all end
        // before the next step begins: the order that keeps a killed prune safe is the steps'.
        let storage = repository.storage
        try deleteAll(groups.flatMap(\.removed).map { ObjectName(.snapshot, $0.id) }, from: storage, lock: lock)
        let (plan, oldIndexes) = try plan(repository, keeping: groups, repacking: repacking)
        describe(plan, in: &report)
        // New packs first, durable: killed after them, they are packs no index lists.
        let written = try Repacker.write(plan, to: repository, refreshing: lock)
        report.packsWritten = written.count
        var remaining = IndexContents()
        remaining.packs = plan.kept + written
        remaining.loose = plan.looseKept
        // Then the new index: killed after it, the old records only list more than is left.
        let newIndexes = Set(try repository.storeIndex(remaining))
        try deleteAll(oldIndexes.filter { !newIndexes.contains($0.name) }, from: storage, lock: lock)
        let newPacks = Set(written.map(\.id))
        let doomed =
            plan.doomed.map(\.name) + plan.repacked.map { ObjectName(.data, $0.pack.id.hex) }
            + plan.looseCopied.map(\.name)
        let sizes = try deleteAll(
            doomed.filter { BlobKey(hex: $0.name).map { !newPacks.contains($0) } ?? true }, from: storage, lock: lock,
            measuring: true)
        report.bytesRemoved = sizes.reduce(0, +)
        report.blobsRemoved =
            plan.doomed.reduce(0) { $0 + $1.blobs }
            + plan.repacked.reduce(0) { $0 + $1.pack.blobs.count - $1.used.count }
        repository.forgetIndex()
        return report
    }

    /// What a prune keeping the snapshots `groups` keep does with each data object, and the index
    /// records it was planned from.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when a kept snapshot's tree or
    ///   an index record cannot be read; the storage's errors.
    private static func plan(
        _ repository: Repository, keeping groups: [RetentionGroup], repacking: RepackPolicy
    ) throws(SandboxError) -> (plan: RepackPlan, indexes: [ObjectName]) {
        var referenced: [BlobKey: BlobKind] = [:]
        func refer(_ ids: [String], _ kind: BlobKind) {
            for id in ids { if let key = BlobKey(hex: id), referenced[key] == nil { referenced[key] = kind } }
        }
        for snapshot in groups.flatMap({ $0.kept.map(\.snapshot) }) {
            for part in snapshot.record.parts {
                refer(part.tree, .tree)
                refer(part.manifest, .tree)
                refer(part.keychain?.split(separator: ",").map(String.init) ?? [], .data)
                for node in try SnapshotTree.nodes(of: part, in: snapshot, from: repository) {
                    refer(node.chunks ?? [], .data)
                }
            }
        }
        let indexes = try repository.storage.list(.index)
        var packs: [BlobKey: IndexedPack] = [:]
        var looseSizes: [BlobKey: UInt32] = [:]
        for name in indexes {
            let contents = try repository.loadIndexContents(name)
            for pack in contents.packs where packs[pack.id] == nil { packs[pack.id] = pack }
            for blob in contents.loose { looseSizes[blob.id] = blob.size }
        }
        let packing = try Repository.readConfig(repository.storage).version >= RepositoryConfig.packsVersion
        let storage = repository.storage
        let plan = try RepackPlan(
            objects: try storage.list(.data), packs: packs, looseSizes: looseSizes, referenced: referenced,
            packing: packing, policy: repacking, sealOverhead: repository.sealOverhead
        ) { (name) throws(SandboxError) in
            // The plaintext size of a loose blob no index lists: its stored size less the seal.
            UInt32(clamping: max(0, (try storage.size(of: name) ?? 0) - Int64(repository.sealOverhead)))
        }
        return (plan, indexes)
    }

    private static func describe(_ plan: RepackPlan, in report: inout PruneReport) {
        report.packsRepacked = plan.repacked.count
        report.bytesRepacked = plan.bytesRepacked
        report.looseBlobsPacked = plan.looseCopied.count
        report.unusedBytesLeft = plan.unusedBytesLeft
    }

    /// Deletes `names`, several at a time, refreshing `lock` as they go; returns the size each had
    /// when `measuring` (a HEAD before each deletion), else 0s.
    ///
    /// - Throws: the first failure in the order of `names` (no deletion starts after a failure;
    ///   those under way finish).
    @discardableResult
    private static func deleteAll(
        _ names: [ObjectName], from storage: any RepositoryStorage, lock: RepositoryLock, measuring: Bool = false
    ) throws(SandboxError) -> [Int64] {
        let outcomes = try ParallelCalls.map(
            names.count, threads: storage.preferredConcurrency, name: "prune-delete", stoppingAtFailure: true,
            between: lock.refreshIfDue
        ) { index in
            Result { () throws(SandboxError) -> Int64 in
                let size = measuring ? try storage.size(of: names[index]) ?? 0 : 0
                try storage.delete(names[index])
                return size
            }
        }
        return try outcomes.map { (outcome) throws(SandboxError) in try outcome.get() }
    }

    private static func report(_ groups: [RetentionGroup], dryRun: Bool) -> PruneReport {
        var report = PruneReport(
            snapshotsKept: groups.reduce(0) { $0 + $1.kept.count },
            snapshotsRemoved: groups.reduce(0) { $0 + $1.removed.count }, blobsRemoved: 0, bytesRemoved: 0,
            dryRun: dryRun)
        for group in groups {
            let decisions =
                group.kept.map { (snapshot: $0.snapshot, reasons: $0.reasons) }
                + group.removed.map { (snapshot: $0, reasons: [String]()) }
            for decision in decisions.sorted(by: { RetentionPolicy.newerFirst($0.snapshot, $1.snapshot) }) {
                report.snapshots.append(
                    PruneDecision(
                        id: decision.snapshot.id, time: decision.snapshot.record.time,
                        host: decision.snapshot.record.hostname, apps: group.apps, kept: !decision.reasons.isEmpty,
                        reasons: decision.reasons))
            }
        }
        return report
    }
}
