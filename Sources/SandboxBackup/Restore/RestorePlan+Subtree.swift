import Foundation
import SandboxCore
import SandboxStore

extension RestorePlan {
    /// The part of this (checked) plan at and beneath `item`, for a restore of that item alone: its
    /// paths re-rooted so that `item` is its last name at the top (the staging folder it is built
    /// in), ``layout`` the container's own folders beneath it, and the folder it goes into
    /// protected by `parentProtection` (the live folder's class, which its files take).
    ///
    /// A hard link whose first name lies outside `item` becomes a file with that file's contents
    /// (the first name is not restored, so it cannot be linked to).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the plan holds no `item`.
    func subtree(at item: ContainerPath, parentProtection: ProtectionClass?) throws(SandboxError) -> RestorePlan {
        guard let name = item.lastName, items.contains(where: { $0.path == item }) else {
            throw SandboxError(
                .notFound,
                "The snapshot holds no '\(item)' (not backed up, excluded, or beneath a symbolic link); nothing was restored. List the snapshot's folder to see what it holds.",
                path: item.description)
        }
        let top = ContainerPath.root.appending(name)
        func rebased(_ path: ContainerPath) -> ContainerPath {
            top.appending(contentsOf: path.names.dropFirst(item.names.count))
        }
        let firstNodes = Dictionary(items.map { ($0.path, $0.node) }, uniquingKeysWith: { first, _ in first })
        var subtreeItems: [(path: ContainerPath, node: TreeNode)] = []
        for (path, original) in items where path.isDescendant(of: item) {
            var node = original
            if let first = node.hardLinkTo {
                let firstPath = try RestorePath.path(of: first)
                if firstPath.isDescendant(of: item) {
                    node.hardLinkTo = Data(ScannedItem.bytes(of: rebased(firstPath)))
                } else {
                    node.hardLinkTo = nil
                    node.chunks = firstNodes[firstPath]?.chunks
                }
            }
            subtreeItems.append((rebased(path), node))
        }
        var folders: [ContainerPath: ProtectionClass] = [:]
        for (path, protection) in protectedFolders where path.isDescendant(of: item) {
            folders[rebased(path)] = protection
        }
        folders[.root] = parentProtection
        return RestorePlan(
            items: subtreeItems, protectedFolders: folders, notes: [],
            layout: Self.containerDirectories.filter { $0.isDescendant(of: item) }.map(rebased))
    }
}
