import CSandboxShims
import Glibc
import Sandbox
import Synchronization

/// The folders the page's uploads write into, so that an upload that fails (refused with 413,
/// cut off, out of space) removes the folders it created — and only those, and only while they
/// are still empty and no other upload is writing into them.
///
/// A folder upload sends several files at once into the same new folders, and each file is
/// linked into its folder only once it is complete: a folder that looks empty may still be the
/// destination of an upload in flight. Every upload therefore registers its folder for as long
/// as it runs; a failed one removes its folders under the same lock, deepest first, stopping at
/// the first that another upload writes into (or beneath), that holds anything, or that a lock
/// covers.
final class UploadFolders: Sendable {
    /// How many uploads in flight write into each folder.
    private let inUse = Mutex<[SharePath: Int]>([:])

    /// Registers one more upload into `folder`, until ``end(_:)`` or
    /// ``end(_:removing:in:locks:)``.
    func begin(_ folder: SharePath) {
        inUse.withLock { $0[folder, default: 0] += 1 }
    }

    /// Ends a successful upload into `folder`.
    func end(_ folder: SharePath) {
        inUse.withLock { Self.release(folder, in: &$0) }
    }

    /// Ends a failed upload into `folder` and removes `created` (the folders it made, outermost
    /// first) from the innermost out, while each is unused, empty and unlocked.
    ///
    /// - Returns: the folders removed. What cannot be removed stays: nothing here fails the
    ///   request, whose own error is the one to report.
    @discardableResult
    func end(
        _ folder: SharePath, removing created: [SharePath], in documents: ConfinedRoot, locks: LockManager
    ) -> [SharePath] {
        inUse.withLock { targets in
            Self.release(folder, in: &targets)
            var removed: [SharePath] = []
            for path in created.reversed() {
                let used = targets.keys.contains { $0 == path || $0.isDescendant(of: path) }
                guard !used, locks.locks(covering: path).isEmpty, Self.removeIfEmpty(path, in: documents) else {
                    break
                }
                removed.append(path)
            }
            return removed
        }
    }

    private static func release(_ folder: SharePath, in targets: inout [SharePath: Int]) {
        let count = (targets[folder] ?? 1) - 1
        targets[folder] = count > 0 ? count : nil
    }

    /// `rmdir` of `path` beneath `documents`: removes an empty directory and nothing else (a
    /// folder that holds anything, a file or a link put at its name, or nothing there at all
    /// stays as it is).
    private static func removeIfEmpty(_ path: SharePath, in documents: ConfinedRoot) -> Bool {
        do throws(SandboxError) {
            let parent = try documents.openParent(of: path.containerPath)
            return unlinkat(parent.rawValue, parent.name.cString, CSB_AT_REMOVEDIR) == 0
        } catch {
            return false  // its parent is gone or cannot be opened: nothing of ours to remove there
        }
    }
}
