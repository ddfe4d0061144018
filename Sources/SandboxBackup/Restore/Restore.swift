import Foundation
import Glibc
import Logging
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// What ``Restore/run(app:snapshot:from:into:logger:progress:)`` did.
public struct RestoreReport: Sendable, Hashable, Codable {
    /// The id of the snapshot restored.
    public var snapshot: String
    /// The app restored.
    public var app: String
    /// Items restored (files, folders, symlinks).
    public var files: Int
    /// Bytes of file contents restored.
    public var bytes: Int64
    /// Keychain items written, or `nil` when the keychain was left as it was.
    public var keychainItems: Int?
    /// The App Groups restored with the app (those of the snapshot its signed bundle lists), or
    /// `nil` when none was; a group of the snapshot it is not a member of is named in ``notes``.
    public var groups: [GroupRestoreReport]?
    /// What a person should know: a keychain not restored and why; a container folder the snapshot
    /// holds as a symlink or a file, restored as an empty folder.
    public var notes: [String]
}

/// Restores an app's container from a snapshot: into a staging directory beside the container,
/// then swapped in with one atomic exchange (`renameat2(RENAME_EXCHANGE)`, the one restart and
/// update use), so a failed or killed restore changes nothing — the container is the old one or
/// the restored one, never a mix. The bundle is left as installed; `Library/Caches` and `tmp` are
/// empty. The keychain, by its rules (device-bound items on the same device only), is written
/// just before the exchange with a record to roll it back by, so that a kill at any moment leaves
/// the old container with the old keychain or the new with the new (see `KeychainRollback`;
/// ``recoverInterrupted(app:in:)`` finishes a killed restore, and every restore and backup of the
/// app calls it first).
///
/// A snapshot is data from the repository, checked before anything is written: items outside
/// the container, named twice, or beneath anything but a folder of the snapshot (through a
/// symlink it holds) are refused, and a container folder (`Documents`, `Library`, …) the snapshot
/// holds as a symlink is made an empty folder, with a note. Files of a folder with a default
/// protection class are written sealed with it, as every writer writes them there.
///
/// A `Container` opened before the restore keeps the replaced directory (its root is a descriptor,
/// which follows the directory): open the container again afterwards.
public enum Restore {
    /// The default logger of ``run(app:snapshot:from:into:logger:progress:)``: it discards every
    /// record (swift-log's own default writes to standard error, which a library must not do unasked).
    public static var disabledLogger: Logger { .discarding }

    static let dataContainers = ContainerPath(constant: "Containers/Data")
    static let stagePrefix = ".restoring-"
    /// Threads that remove the replaced container. On this machine's ext4 (mounted with `discard`)
    /// an `unlinkat` of a small file mostly waits — about a millisecond, for the journal — and the
    /// waits overlap: 10,000 files in 100 folders took 29 s with one `rm -rf` and 0.9 s with 16
    /// at once; the removal was two thirds of a restore's time (9.8 of 14.7 s) on one thread.
    static let removalThreads = 8

    /// Restores `app` (which must be installed) from `snapshot`.
    ///
    /// Holds a shared lock of the repository throughout, so that no prune removes the snapshot.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` while a prune runs;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed or not in
    ///   the snapshot; ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a missing or damaged
    ///   blob, or a tree no backup records (nothing is changed); `protected-data-unavailable` while
    ///   a folder of the snapshot has a protection class whose files cannot be sealed (the device is
    ///   locked; nothing is changed); file-system errors.
    ///
    /// The work runs on a thread of its own (file writes, `renameat2`, the repository's requests
    /// block); the task awaits it. It is not cancelled with the task: a restore runs to its end
    /// or fails, leaving the old container.
    ///
    /// - Parameters:
    ///   - app: the app whose data container is replaced.
    ///   - snapshot: the snapshot to restore it from (``Repository/snapshot(matching:)``).
    ///   - repository: the repository holding the snapshot.
    ///   - home: the sandbox home the app is installed on.
    ///   - logger: where a failed rollback step is logged (with the path and the error) before the
    ///     restore's error is thrown; by default nothing is logged.
    ///   - progress: called as the restore moves on, on the restore's thread.
    public static func run(
        app: AppIdentifier, snapshot: Snapshot, from repository: Repository, into home: SandboxHome,
        logger: Logger = Restore.disabledLogger,
        progress: @escaping @Sendable (RestoreProgress) -> Void = { _ in }
    ) async throws(SandboxError) -> RestoreReport {
        try await OwnedThread.run(name: "sandbox-restore") { () throws(SandboxError) in
            try run(app: app, snapshot: snapshot, from: repository, into: home, logger: logger, progress: progress)
        }
    }

    /// ``run(app:snapshot:from:into:logger:progress:)`` on the calling thread, which it blocks.
    package static func run(
        app: AppIdentifier, snapshot: Snapshot, from repository: Repository, into home: SandboxHome,
        logger: Logger = .discarding,
        progress: (RestoreProgress) -> Void = { _ in }
    ) throws(SandboxError) -> RestoreReport {
        let container = try home.container(for: app)  // installed: the bundle stays as it is
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "restore")
        repository.forgetIndex()  // a prune may have changed it since it was loaded
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        // Every container checked and read before anything changes: the app's, then its groups'.
        var notes: [String] = []
        let appPart = try SnapshotTree.part(of: app.rawValue, in: snapshot)
        var parts = [
            try RestorePart(.app(app), part: appPart, of: snapshot, from: repository, home: home, notes: &notes)
        ]
        let (groups, groupNotes) = groupParts(of: container, in: snapshot)
        notes += groupNotes
        // Coordinated with the live users of every member of a restored group: they all see it.
        var apps = [app]
        for (group, part) in groups {
            parts.append(
                try RestorePart(
                    .group(group, member: app), part: part, of: snapshot, from: repository, home: home, notes: &notes))
            apps += try home.members(of: group)
        }
        apps = Array(Set(apps)).sorted()
        // Before the work, not only at the exchange.
        for member in apps { try home.requireNoRefusal(of: .restore, for: member) }
        try recoverInterrupted(app: app, in: home)
        var machine = RestoreMachine(
            app: app.rawValue, files: parts.reduce(0) { $0 + $1.plan.items.count },
            bytes: parts.reduce(0) { $0 + $1.part.bytes })
        func advance(_ event: RestoreMachine.Event) {
            do {
                progress(try machine.handle(event))
            } catch {
                preconditionFailure("restore event out of order in phase \(error.phase)")
            }
        }
        var exchanges = RestoreExchanges(home: home)
        do throws(SandboxError) {
            for part in parts { try part.stage(from: repository, into: home, lock: lock, advance: advance) }
            advance(.staged)
            // Each container's keychain just before its exchange, with a record to roll it back by
            // (see KeychainRollback): the exchange is the one commit point of both. The groups
            // first, the app last. The live users let go first (a share finishes its uploads; a
            // program under `sandbox run` refuses the restore) and reopen the restored containers after.
            try home.coordinating(.restore, apps: apps) { () throws(SandboxError) in
                for part in parts.dropFirst() { try exchanges.exchange(part) }
                try exchanges.exchange(parts[0])
            }
        } catch {
            // Roll back; `error` propagates. A rollback step that fails is logged; the keychain's
            // is done by the next restore or backup (the record stays), the stage's is swept then.
            exchanges.rollBack(logger)
            for part in parts {
                do throws(SandboxError) {
                    try home.root.removeItem(at: part.stage, recursively: true)
                } catch let failure {
                    logRollbackFailure(failure, removing: home.root.displayPath(of: part.stage), logger)
                }
            }
            throw error
        }
        advance(.exchanged)
        for part in parts {
            do throws(SandboxError) {
                try exchanges.removeRecord(of: part)
                try home.root.removeItem(at: part.stage, recursively: true, threads: removalThreads)
            } catch {
                notes.append(
                    "The replaced container of \(part.target) could not be removed from '\(home.root.displayPath(of: part.stage))' (\(error.message)); the next restore removes it."
                )
            }
        }
        advance(.keychainDone)
        let restoredGroups = parts.dropFirst().map { part in
            GroupRestoreReport(
                group: part.target.name, files: part.plan.items.count, bytes: part.part.bytes,
                keychainItems: part.keychainItems?.count)
        }
        return RestoreReport(
            snapshot: snapshot.id, app: app.rawValue, files: parts[0].plan.items.count, bytes: appPart.bytes,
            keychainItems: parts[0].keychainItems?.count, groups: restoredGroups.isEmpty ? nil : restoredGroups,
            notes: notes)
    }

    /// Logs a rollback step that failed after a restore failed: the restore's own error is the one
    /// thrown, so this one would otherwise be lost.
    static func logRollbackFailure(_ failure: SandboxError, removing path: String, _ logger: Logger) {
        logger.error(
            "A failed restore could not roll back '\(path)': \(failure.message) The next restore or backup of the app finishes it.",
            metadata: ["path": "\(path)", "code": "\(failure.code)"])
    }

    /// Finishes what killed restores of `app` left: puts the old keychain back where a restore was
    /// killed between writing the keychain and the exchange, and removes staging directories.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a rollback record that cannot be
    ///   read; keychain and file-system errors.
    public static func recoverInterrupted(app: AppIdentifier, in home: SandboxHome) async throws(SandboxError) {
        try await OwnedThread.run(name: "sandbox-restore") { () throws(SandboxError) in
            try recoverInterrupted(app: app, in: home)
        }
    }

    /// ``recoverInterrupted(app:in:)`` on the calling thread, which it blocks.
    package static func recoverInterrupted(app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
        try KeychainRollback.recover(.app(app), in: home)
        // The groups restored with the app: those it is a member of (one whose membership cannot
        // be read is not restored, and what a killed restore left is finished by another member).
        let groups: [AppGroupIdentifier]
        do throws(SandboxError) {
            groups = try home.container(for: app).appGroups()
        } catch  where error.code != .notFound {
            return
        }
        for group in groups { try KeychainRollback.recover(.group(group, member: app), in: home) }
    }

    /// Removes the staging directories of restores of `target` that were killed.
    static func sweepStages(of target: RestoreTarget, in home: SandboxHome) throws(SandboxError) {
        for name in try home.root.subdirectoryNames(at: target.folder) where target.isStage(name) {
            try home.root.removeItem(at: target.folder.appendingTrusted(name), recursively: true)
        }
    }
}
