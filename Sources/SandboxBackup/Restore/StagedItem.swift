import Glibc
import Logging
import SandboxCore

/// An item a partial restore built in a hidden folder beside the live one
/// (``Restore/run(app:snapshot:including:from:into:logger:)``), and the one step that publishes it.
struct StagedItem {
    /// The item's path in the container.
    let path: ContainerPath
    /// The live item's folder, held (operations on it never resolve its path again).
    let parent: ConfinedRoot
    /// The hidden folder in ``parent`` the item is built in; after publishing, the replaced item.
    let stage: ContainerPath

    /// The item's name in ``parent``.
    private var name: ContainerPath { ContainerPath.root.appending(path.names[path.names.count - 1]) }

    /// Puts the built item at its name in one `renameat2`: exchanged with the live item (which
    /// goes into the hidden folder), or renamed there when there is none.
    ///
    /// - Parameter container: the app's container as it is now: the item's folder must still be
    ///   the one it was built in (a full restore or a reinstall replaces the container's folders).
    /// - Throws: ``/SandboxCore/SandboxError/Code/interrupted`` when it is not;
    ///   the errors of ``/SandboxCore/ConfinedRoot/exchangeItems(at:with:)``.
    func publish(checkingAgainst container: ConfinedRoot) throws(SandboxError) {
        let now = try container.attributes(at: path.parent)
        let held = try parent.attributes(at: .root)
        guard let now, let held, now.device == held.device, now.inode == held.inode else {
            throw SandboxError(
                .interrupted,
                "The folder of '\(path)' was replaced (the container restored or reinstalled) while the item was prepared; nothing of it was restored. Restore it again.",
                path: path.description)
        }
        let built = stage.appending(contentsOf: name.names)
        if try parent.attributes(at: name, followingSymlink: false) != nil {
            try parent.exchangeItems(at: name, with: built)
        } else {
            try parent.moveItem(from: built, to: name)
        }
    }

    /// Removes the hidden folder; returns whether it is gone (a failure is logged).
    @discardableResult
    func remove(_ logger: Logger) -> Bool {
        do throws(SandboxError) {
            try parent.removeItem(at: stage, recursively: true)
            return true
        } catch {
            logger.error(
                "A partial restore could not remove '\(parent.displayPath(of: stage))': \(error.message)",
                metadata: ["path": "\(parent.displayPath(of: stage))", "code": "\(error.code)"])
            return false
        }
    }

    /// Removes the hidden folders that killed restores left in `folder`: those of processes gone.
    static func sweep(in folder: ConfinedRoot) throws(SandboxError) {
        for name in try folder.subdirectoryNames(at: .root) where name.hasPrefix(Restore.itemStagePrefix) {
            let owner = name.dropFirst(Restore.itemStagePrefix.count).prefix { $0 != "-" }
            guard let pid = pid_t(owner), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try folder.removeItem(at: ContainerPath.root.appendingTrusted(name), recursively: true)
        }
    }
}
