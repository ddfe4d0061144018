import Foundation
import SandboxCore

/// Reads an app's tree out of a snapshot: the one decoder of trees that restores, prunes and
/// browsing use.
enum SnapshotTree {
    /// The nodes of `part`'s tree, as stored (unchecked: ``RestorePlan`` checks them).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a missing or damaged blob,
    ///   or a tree that does not decode.
    static func nodes(
        of part: AppSnapshot, in snapshot: Snapshot, from repository: Repository
    ) throws(SandboxError)
        -> [TreeNode]
    {
        do {
            return try TreeJSON.decode(try repository.loadSplit(part.tree))
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .repositoryDamaged,
                "The tree of '\(part.app)' in snapshot \(snapshot.shortID) cannot be read (\(error)); the snapshot is damaged or forged, and nothing was changed."
            )
        }
    }

    /// The part of `app` in `snapshot`; with `includingGroups`, an App Group's part too
    /// (``AppSnapshot/groupPartName(_:)``: browsing reads them, restoring an app does not).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` naming the parts the snapshot holds.
    static func part(
        of app: String, in snapshot: Snapshot, includingGroups: Bool = false
    ) throws(SandboxError) -> AppSnapshot {
        let parts = includingGroups ? snapshot.record.parts : snapshot.record.apps
        guard let part = parts.first(where: { $0.app == app }) else {
            throw SandboxError(
                .notFound,
                "The snapshot \(snapshot.shortID) holds no '\(app)' (it holds \(parts.map(\.app).joined(separator: ", ")))."
            )
        }
        return part
    }
}
