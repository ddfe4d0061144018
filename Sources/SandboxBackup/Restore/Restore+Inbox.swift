import Foundation
import Sandbox
import SandboxCore
import SandboxWatch

/// What ``Restore/deliverToInbox(app:snapshot:path:from:into:)`` did.
public struct InboxRestoreReport: Sendable, Hashable, Codable {
    /// The id of the snapshot the file came from.
    public var snapshot: String
    /// The app whose Inbox received it.
    public var app: String
    /// The file's path in the snapshot.
    public var item: String
    /// Where it was delivered, e.g. `Documents/Inbox/report 2.pdf`.
    public var delivered: String
    /// Its size in bytes.
    public var bytes: Int64
}

extension Restore {
    /// Delivers one file of `app` in `snapshot` into the app's `Documents/Inbox`, through the
    /// Inbox's delivery (``/SandboxWatch/Inbox/deliver(named:pieces:)``, as "Open In…" delivers a
    /// document: numbered when the name is taken, published atomically, sealed with the Inbox's
    /// class), so the running app takes it in through its Inbox processing. Nothing else of the
    /// container changes, and no live user is paused.
    ///
    /// Streamed: one chunk in memory at a time, each checked against its id before it is written,
    /// and nothing written outside the container (an encrypted repository's plaintext never
    /// reaches a host temporary file). Holds the repository's shared lock throughout.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/isADirectory`` for a folder;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a symbolic link; as
    ///   ``SnapshotBrowser/list(_:app:path:recursive:from:)`` for the path and the snapshot;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a damaged chunk or a size that
    ///   does not match (nothing is delivered); `not-found` when the app is not installed; the
    ///   Inbox delivery's errors.
    public static func deliverToInbox(
        app: AppIdentifier, snapshot: Snapshot, path: String, from repository: Repository, into home: SandboxHome
    ) async throws(SandboxError) -> InboxRestoreReport {
        try await OwnedThread.run(name: "sandbox-restore") { () throws(SandboxError) in
            try deliverToInbox(app: app, snapshot: snapshot, path: path, from: repository, into: home)
        }
    }

    /// ``deliverToInbox(app:snapshot:path:from:into:)`` on the calling thread, which it blocks.
    package static func deliverToInbox(
        app: AppIdentifier, snapshot: Snapshot, path: String, from repository: Repository, into home: SandboxHome
    ) throws(SandboxError) -> InboxRestoreReport {
        let item = try SnapshotBrowser.itemPath(path)
        let inbox = Inbox(container: try home.container(for: app))
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "restore")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        let node = try SnapshotBrowser.fileNode(at: item, of: app.rawValue, in: snapshot, from: repository)
        let delivered = try inbox.deliver(named: item.lastComponent ?? "") { () throws(SandboxError) in
            var ids = (node.chunks ?? []).makeIterator()
            var total: Int64 = 0
            return { () throws(SandboxError) -> [UInt8]? in
                guard let id = ids.next() else {
                    guard total == node.size else {
                        throw SandboxError(
                            .repositoryDamaged,
                            "'\(item)' should be \(node.size) bytes but its chunks hold \(total); the snapshot is damaged, and nothing was delivered.",
                            path: item.description)
                    }
                    return nil
                }
                try lock.refreshIfDue()
                let piece = try repository.loadBlob(id)
                total += Int64(piece.count)
                return piece
            }
        }
        return InboxRestoreReport(
            snapshot: snapshot.id, app: app.rawValue, item: item.description, delivered: delivered.description,
            bytes: node.size)
    }
}
