import Glibc
import Sandbox
import SandboxCore
import SandboxStore

/// The state of one export (``IOSBackup/export(apps:from:to:limits:)``): the domains' trees copied
/// into the staging folder, then listed and their files moved to their fileIDs.
struct IOSBackupExport {
    let home: SandboxHome
    let limits: IOSBackupLimits
    private(set) var domains: [String] = []
    private(set) var items: [IOSBackupItem] = []
    private(set) var bytes: Int64 = 0
    private(set) var notes: [String] = []

    init(home: SandboxHome, limits: IOSBackupLimits) {
        self.home = home
        self.limits = limits
    }

    /// What iOS leaves out of a backup: `Library/Caches`, `tmp`; and iOS's container identity file.
    static let leftOut: Set<ContainerPath> = ContainerScanner.skippedDirectories.union([
        XcodeContainer.containerIdentityFile
    ])

    /// Copies the container `root` into `<trees>/<domain>` of `output`, by Xcode container
    /// export's rules (``AppDataCopier``), leaving out what iOS leaves out and `lock`.
    mutating func copy(
        _ domain: String, from root: ConfinedRoot, skipping lock: ContainerPath, into output: ConfinedRoot
    ) throws(SandboxError) {
        let tree = IOSBackup.trees.appendingTrusted(domain)
        try output.createDirectory(at: tree)
        var copier = AppDataCopier(
            .exporting, limits: limits.container, source: root.displayPath(of: .root),
            skipping: Self.leftOut.union([lock]),
            protection: .init(
                dataProtection: DataProtection(home: home), source: root,
                output: try output.openSubroot(at: tree, refusingSymlinks: true)))
        let input = try root.openDirectory(.root)
        let copy = try output.openDirectory(tree)
        try copier.copy(from: input.rawValue, to: copy.rawValue)
        domains.append(domain)
        bytes += copier.bytes
        notes += copier.notes.map { "\(domain): \($0)" }
        guard bytes <= limits.maximumBytes else {
            throw SandboxError(
                .tooLarge,
                "The apps' data is past the limit of \(limits.maximumBytes) bytes of files; nothing was exported. Export fewer apps at a time.",
                path: root.displayPath(of: .root))
        }
    }

    /// The namespace of the extended attributes carried (by their names without it).
    static let userPrefix = "user."

    /// Lists every copied domain and moves its files to their fileIDs in `output`.
    mutating func index(_ output: ConfinedRoot) throws(SandboxError) {
        var made: Set<String> = []
        for domain in domains {
            let tree = IOSBackup.trees.appendingTrusted(domain)
            var indexer = IOSBackupIndexer(domain: domain, source: domain)
            let top = try output.openDirectory(tree)
            try indexer.index(top.rawValue)
            // Their `user.` extended attributes, before the files move.
            for var item in indexer.items {
                let path = tree.appending(contentsOf: try ContainerPath(item.relativePath).names)
                if item.kind != .symlink {
                    for name in try output.extendedAttributeNames(at: path) where name.hasPrefix(Self.userPrefix) {
                        item.extendedAttributes[String(name.dropFirst(Self.userPrefix.count))] =
                            try output.extendedAttribute(named: name, at: path) ?? []
                    }
                }
                items.append(item)
            }
            guard items.count <= limits.maximumItems else {
                throw SandboxError(
                    .tooLarge,
                    "The apps' data is past the limit of \(limits.maximumItems) items; nothing was exported. Export fewer apps at a time.",
                    path: domain)
            }
            for file in indexer.files {
                let bucket = String(file.fileID.prefix(2))
                if made.insert(bucket).inserted { try output.createDirectory(at: try ContainerPath(bucket)) }
                try output.moveItem(
                    from: tree.appending(contentsOf: file.path.names),
                    to: ContainerPath(bucket).appendingTrusted(file.fileID))
            }
        }
    }
}
