import Foundation
import Sandbox
import SandboxCore
import SandboxStore

/// A snapshot's tree checked before anything is written: a tree is data from the repository, so
/// untrusted, and a restore writes only what a backup could have recorded.
///
/// - Every path is a plain path inside the container (``RestorePath``), named once.
/// - Every item's folder comes before it as a folder of the tree (the scanner lists parents first
///   and never descends into a symlink): no item is written through a symlink the restore made —
///   `a -> /etc` then `a/x`, `a -> ../other-app` then `a/x`, or `a -> Library` then `a/x` — and a
///   folder's protection class is in place before any file of it is written.
/// - A hard link's first name is a file that comes before it.
/// - A container folder the system relies on (``/Sandbox/ContainerDirectory``: `Documents`, the
///   Inbox, `Library`, …) that is not a folder in the tree — a symlink (`Documents -> Library`), a
///   file — is not restored as such: the folder is made empty and ``notes`` says so. Such a link
///   holds no data of its own (a backup never follows it), and an app that planted one in its
///   container must not make every later snapshot of it impossible to restore.
/// - A folder's default protection class names a class.
struct RestorePlan {
    /// The items to write, in the tree's order, with their checked paths.
    let items: [(path: ContainerPath, node: TreeNode)]
    /// The folders with a default protection class (``/SandboxStore/DataProtection``), by path.
    let protectedFolders: [ContainerPath: ProtectionClass]
    /// What a person should know: container folders restored as empty folders, and why.
    let notes: [String]
    /// The container's own folders the restore makes where the tree lacks them, parents first.
    let layout: [ContainerPath]

    /// The folders of a data container, parents first (none is ever in a snapshot as anything
    /// but a folder; `Library/Caches` and `tmp` are never in one).
    static let containerDirectories: [ContainerPath] = ContainerDirectory.allCases.compactMap(\.path).filter {
        !$0.isRoot
    }

    /// Checks `nodes`, the tree of a container whose own folders are `layout` (a data
    /// container's by default; an App Group's has fewer).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a tree that breaks a rule
    ///   above, naming the item; nothing has been written then.
    init(_ nodes: [TreeNode], layout: [ContainerPath] = containerDirectories) throws(SandboxError) {
        var items: [(path: ContainerPath, node: TreeNode)] = []
        var kinds: [ContainerPath: TreeNode.Kind] = [:]
        var protectedFolders: [ContainerPath: ProtectionClass] = [:]
        var notes: [String] = []
        for node in nodes {
            let path = try RestorePath.path(of: node.path)
            if Self.isSkipped(path) { continue }
            guard kinds[path] == nil else { throw Self.forged(path, "is named twice") }
            let parent = path.parent
            guard parent.isRoot || kinds[parent] == .directory else {
                throw Self.forged(
                    path,
                    kinds[parent] == nil
                        ? "comes before its folder '\(parent)'"
                        : "lies beneath '\(parent)', which the snapshot holds as a \(kinds[parent]?.rawValue ?? "")")
            }
            kinds[path] = node.kind
            if node.kind != .directory && layout.contains(path) {
                let what =
                    node.kind == .symlink
                    ? "a symlink to '\(node.target.map { String(decoding: $0, as: UTF8.self) } ?? "")'" : "a file"
                notes.append(
                    "'\(path)' is \(what) in the snapshot; a container's own folders are never links or files, so it was restored as an empty folder."
                )
                continue
            }
            if let first = node.hardLinkTo {
                let firstPath = try RestorePath.path(of: first)
                guard kinds[firstPath] == .file, firstPath != path else {
                    throw Self.forged(path, "is a hard link to '\(firstPath)', which is not a file before it")
                }
            }
            if node.kind == .directory, let value = node.extendedAttributes?[ProtectionClass.attributeName] {
                guard let protection = ProtectionClass(rawValue: String(decoding: value, as: UTF8.self)) else {
                    throw Self.forged(
                        path,
                        "has the protection class '\(String(decoding: value.prefix(40), as: UTF8.self))', which does not exist"
                    )
                }
                protectedFolders[path] = protection
            }
            items.append((path, node))
        }
        self.init(items: items, protectedFolders: protectedFolders, notes: notes, layout: layout)
    }

    /// A plan of items checked already (``subtree(at:parentProtection:)``).
    init(
        items: [(path: ContainerPath, node: TreeNode)], protectedFolders: [ContainerPath: ProtectionClass],
        notes: [String], layout: [ContainerPath]
    ) {
        self.items = items
        self.protectedFolders = protectedFolders
        self.notes = notes
        self.layout = layout
    }

    /// The blobs ``TreeWriter/write(_:at:)`` reads for the items, in the order it reads them.
    var contentIDs: [String] {
        items.flatMap { item in
            item.node.kind == .file && item.node.hardLinkTo == nil ? item.node.chunks ?? [] : []
        }
    }

    /// Refuses the restore while a folder that gets files has a class whose files cannot be
    /// sealed now (``/SandboxStore/ProtectionClass/complete`` while the device is locked,
    /// ``/SandboxStore/ProtectionClass/untilFirstUserAuthentication`` before the first unlock):
    /// a restore never writes them in the clear, and stops before it changes anything.
    ///
    /// - Throws: `protected-data-unavailable` naming the folder and the remedy; the key bag's errors.
    func requireWritableClasses(_ dataProtection: DataProtection) throws(SandboxError) {
        var checked: Set<ContainerPath> = []
        for item in items where item.node.kind == .file {
            let folder = item.path.parent
            guard let protection = protectedFolders[folder], checked.insert(folder).inserted,
                protection != .completeUnlessOpen  // written to the class's public key, locked or not
            else { continue }
            guard try dataProtection.isAvailable(protection) else {
                throw SandboxError(
                    SandboxError.Code(SandboxError.Code.protectedDataUnavailable.rawValue),
                    "The folder '\(folder)' has the protection class '\(protection.rawValue)', and its files cannot be sealed while the device is locked; nothing was restored. Unlock the device and restore again.",
                    path: folder.description)
            }
        }
    }

    /// Whether nothing is written at `path` (`Library/Caches`, `tmp`: never in a snapshot).
    static func isSkipped(_ path: ContainerPath) -> Bool {
        ContainerScanner.skippedDirectories.contains(where: { path.isDescendant(of: $0) })
    }

    private static func forged(_ path: ContainerPath, _ problem: String) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "The snapshot's item '\(path)' \(problem); no backup records that, so the snapshot is damaged or forged, and nothing was restored.",
            path: path.description)
    }
}
