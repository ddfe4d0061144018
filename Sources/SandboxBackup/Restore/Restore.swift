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
        _ = try home.container(for: app)  // installed: the bundle stays as it is
        try home.requireNoRefusal(of: .restore, for: app)  // before the work, not only at the exchange
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "restore")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let part = try SnapshotTree.part(of: app.rawValue, in: snapshot)
        let nodes = try SnapshotTree.nodes(of: part, in: snapshot, from: repository)
        // The tree checked, and the protected folders' classes writable, before anything changes.
        let plan = try RestorePlan(nodes)
        try plan.requireWritableClasses(DataProtection(home: home))
        var notes = plan.notes
        // The keychain to write, read before anything changes (a damaged one changes nothing).
        var keychainItems: [KeychainItem]?
        if let keychain = part.keychain {
            let ids = keychain.split(separator: ",").map(String.init)
            let record: KeychainRecord
            do {
                record = try JSONDecoder.repository.decode(
                    KeychainRecord.self, from: Data(try repository.loadSplit(ids)))
            } catch let error as SandboxError {
                throw error
            } catch {
                throw SandboxError(
                    .repositoryDamaged,
                    "The keychain of '\(app)' in snapshot \(snapshot.shortID) cannot be read: \(error).")
            }
            let (items, note) = try record.itemsToRestore(on: home, app: app)
            keychainItems = items
            if let note { notes.append(note) }
        }
        try KeychainRollback.recover(app: app, in: home)
        let live = dataContainers.appendingTrusted(app.rawValue)
        let stageName = "\(stagePrefix)\(RandomToken.make())-\(app.rawValue)"
        let stage = dataContainers.appendingTrusted(stageName)
        var machine = RestoreMachine(app: app.rawValue, files: plan.items.count, bytes: part.bytes)
        func advance(_ event: RestoreMachine.Event) {
            do {
                progress(try machine.handle(event))
            } catch {
                preconditionFailure("restore event out of order in phase \(error.phase)")
            }
        }
        var rollback: (path: ContainerPath, record: KeychainRollback)?
        do throws(SandboxError) {
            try home.root.createDirectory(at: stage)
            try home.root.setPermissions(FilePermissions(rawValue: 0o700), at: stage)
            // No item is written through a symlink: the plan puts none on the way, and the
            // kernel refuses any it meets.
            let stageRoot = try home.root.openSubroot(at: stage, refusingSymlinks: true)
            let blobs = BlobPrefetcher(ids: plan.contentIDs, repository: repository)
            defer { blobs.stop() }
            let files = FileWritePool()
            defer { files.stop() }
            var writer = TreeWriter(
                root: stageRoot, blobs: blobs, files: files, dataProtection: DataProtection(home: home))
            for (path, node) in plan.items {
                try lock.refreshIfDue()
                let written = try writer.write(node, at: path)
                if written > 0 { advance(.wrote(bytes: written)) }
                advance(.fileDone)
            }
            try writer.finish()
            advance(.staged)
            // The keychain just before the exchange, with a record to roll it back by (see
            // KeychainRollback): the exchange is the one commit point of both.
            // The app's live users let go first (a share finishes its uploads; a program under
            // `sandbox run` refuses the restore) and reopen the restored container after.
            try home.coordinating(.restore, of: app) { () throws(SandboxError) in
                if let keychainItems {
                    rollback = try KeychainRollback.record(app: app, stageNamed: stageName, in: home)
                    try KeychainBackupAccess.replaceItems(keychainItems, home: home, app: app)
                }
                try home.root.exchangeItems(at: live, with: stage)
            }
        } catch {
            // Roll back; `error` propagates. A rollback step that fails is logged; the keychain's
            // is done by the next restore or backup (the record stays), the stage's is swept then.
            if let rollback {
                do throws(SandboxError) {
                    try rollback.record.rollBack(app: app, in: home)
                    try home.root.removeItem(at: rollback.path)
                } catch let failure {
                    logRollbackFailure(failure, removing: home.root.displayPath(of: rollback.path), logger)
                }
            }
            do throws(SandboxError) {
                try home.root.removeItem(at: stage, recursively: true)
            } catch let failure {
                logRollbackFailure(failure, removing: home.root.displayPath(of: stage), logger)
            }
            throw error
        }
        advance(.exchanged)
        do throws(SandboxError) {
            if let rollback { try home.root.removeItem(at: rollback.path) }
            try home.root.removeItem(at: stage, recursively: true, threads: removalThreads)
        } catch {
            notes.append(
                "The replaced container could not be removed from '\(home.root.displayPath(of: stage))' (\(error.message)); the next restore removes it."
            )
        }
        advance(.keychainDone)
        return RestoreReport(
            snapshot: snapshot.id, app: app.rawValue, files: plan.items.count, bytes: part.bytes,
            keychainItems: keychainItems?.count,
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
        try KeychainRollback.recover(app: app, in: home)
    }

    /// Removes the staging directories of restores of `app` that were killed.
    static func sweepStages(of app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
        for name in try home.root.subdirectoryNames(at: dataContainers)
        where name.hasPrefix(stagePrefix) && name.hasSuffix("-" + app.rawValue) {
            try home.root.removeItem(at: dataContainers.appendingTrusted(name), recursively: true)
        }
    }
}
