import Foundation
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// One container of a restore, checked and read before anything changes: the part of the
/// snapshot that holds it, its checked tree, and the keychain items to write with it.
struct RestorePart {
    let target: RestoreTarget
    let part: AppSnapshot
    let plan: RestorePlan
    /// The keychain to write, or `nil` to leave it as it is (the snapshot has none for it, or it
    /// cannot come back on this device: a note says so).
    let keychainItems: [KeychainItem]?
    /// The staging directory's name in the target's folder.
    let stageName: String

    var stage: ContainerPath { target.folder.appendingTrusted(stageName) }

    /// Reads `target`'s part of `snapshot`: its tree checked, the protected folders' classes
    /// writable, its keychain opened (a damaged one changes nothing); notes go to `notes`.
    ///
    /// - Throws: as ``Restore/run(app:snapshot:from:into:logger:progress:)`` before anything changes.
    init(
        _ target: RestoreTarget, part: AppSnapshot, of snapshot: Snapshot, from repository: Repository,
        home: SandboxHome, notes: inout [String]
    ) throws(SandboxError) {
        self.target = target
        self.part = part
        let nodes = try SnapshotTree.nodes(of: part, in: snapshot, from: repository)
        plan = try RestorePlan(nodes, layout: target.layout)
        try plan.requireWritableClasses(DataProtection(home: home))
        notes += plan.notes
        var items: [KeychainItem]?
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
                    "The keychain of \(target) in snapshot \(snapshot.shortID) cannot be read: \(error).")
            }
            let (restored, note) = try record.itemsToRestore(on: home, for: target)
            items = restored
            if let note { notes.append(note) }
        }
        keychainItems = items
        stageName = target.makeStageName()
    }

    /// Writes the tree into a new private staging directory beside the live container.
    func stage(
        from repository: Repository, into home: SandboxHome, lock: RepositoryLock,
        advance: (RestoreMachine.Event) -> Void
    ) throws(SandboxError) {
        try home.root.createDirectory(at: target.folder, withIntermediateDirectories: true)
        try home.root.createDirectory(at: stage)
        try home.root.setPermissions(FilePermissions(rawValue: 0o700), at: stage)
        // No item is written through a symlink: the plan puts none on the way, and the kernel
        // refuses any it meets.
        let stageRoot = try home.root.openSubroot(at: stage, refusingSymlinks: true)
        let blobs = BlobPrefetcher(ids: plan.contentIDs, repository: repository)
        defer { blobs.stop() }
        let files = FileWritePool()
        defer { files.stop() }
        var writer = TreeWriter(
            root: stageRoot, blobs: blobs, files: files, dataProtection: DataProtection(home: home),
            layout: target.layout)
        for (path, node) in plan.items {
            try lock.refreshIfDue()
            let written = try writer.write(node, at: path)
            if written > 0 { advance(.wrote(bytes: written)) }
            advance(.fileDone)
        }
        try writer.finish()
    }
}
