import Foundation
import Sandbox
import SandboxCore
import SandboxStore

/// Keeps an app's container and keychain a consistent pair across a restore that is killed.
///
/// The container changes in one atomic exchange; the keychain lives elsewhere
/// (`Device/Apps/<app>/`) and changes in one atomic write of its own; no single step changes
/// both. So a restore writes the keychain *just before* the exchange, after leaving a rollback
/// record beside the staging directory (`Containers/Data/.restoring-<token>-<app>.keychain`,
/// written atomically and durably): the old keychain, sealed under the device-bound key, and the
/// inode of the staging directory. The exchange is the commit point:
///
/// - killed before the keychain write: old container, old keychain;
/// - killed between the keychain write and the exchange (one system call apart): the record says
///   so — the live container is not the staged directory — and ``recover(_:in:)`` puts the old
///   keychain back: old and old;
/// - killed after the exchange: the live container *is* the staged directory (same inode), so the
///   record is only removed: new and new.
///
/// ``recover(_:in:)`` runs at the start of every restore and every backup of the app, before
/// anything reads the keychain; a failed exchange rolls back at once.
struct KeychainRollback: Codable {
    /// The staging directory's inode and device: after the exchange, the live container's.
    var inode: UInt64
    var device: UInt64
    /// The keychain before the restore; `nil` when it had no items.
    var keychain: KeychainRecord?

    static let suffix = ".keychain"

    /// Records the current keychain of `target` for the staging directory `stageName`, durably.
    static func record(
        _ target: RestoreTarget, stageNamed stageName: String, in home: SandboxHome
    ) throws(SandboxError)
        -> (path: ContainerPath, record: KeychainRollback)
    {
        let stage = target.folder.appendingTrusted(stageName)
        guard let attributes = try home.root.attributes(at: stage, followingSymlink: false) else {
            throw SandboxError(.notFound, "The restore's staging directory vanished.", path: stage.description)
        }
        let rollback = KeychainRollback(
            inode: attributes.inode, device: attributes.device,
            keychain: try KeychainRecord.capture(home: home, target: target, portable: false))
        let path = target.folder.appendingTrusted(stageName + suffix)
        try home.root.writeContents(RepositoryJSON.encode(rollback), to: path, options: [.atomic, .durable])
        return (path, rollback)
    }

    /// Puts back the keychain this record holds.
    func rollBack(_ target: RestoreTarget, in home: SandboxHome) throws(SandboxError) {
        let items = try keychain?.itemsToRestore(on: home, for: target).items ?? []
        try target.replaceKeychain(items, home: home)
    }

    /// Finishes what killed restores of `target` left: each rollback record is applied when its
    /// exchange did not happen and removed; then the staging directories are removed.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a rollback record that cannot be
    ///   read (left in place, so nothing is lost); keychain and file-system errors.
    static func recover(_ target: RestoreTarget, in home: SandboxHome) throws(SandboxError) {
        guard try home.root.attributes(at: target.folder, followingSymlink: false)?.type == .directory else { return }
        let live = try home.root.attributes(at: target.live, followingSymlink: false)
        for name in try home.root.fileNames(at: target.folder)
        where name.hasSuffix(suffix) && target.isStage(String(name.dropLast(suffix.count))) {
            let path = target.folder.appendingTrusted(name)
            let bytes = try home.root.readContents(of: path, maximumSize: 64 << 20)
            let rollback: KeychainRollback
            do {
                rollback = try RepositoryJSON.decode(KeychainRollback.self, from: bytes, name: name)
            } catch {
                throw SandboxError(
                    .corrupt,
                    "The keychain rollback record '\(home.root.displayPath(of: path))' of an interrupted restore cannot be read (\(error.detail)). Restore \(target) again, then remove the record.",
                    path: path.description)
            }
            if live?.inode != rollback.inode || live?.device != rollback.device {
                try rollback.rollBack(target, in: home)
            }
            try home.root.removeItem(at: path)
        }
        try Restore.sweepStages(of: target, in: home)
    }
}
