import Crypto
import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore

/// Backs up apps' containers into a repository: one snapshot per run.
///
/// For each app: scan the data container by iOS's rules, then store each
/// file's content-defined chunks (FastCDC) as blobs — a file whose size, times and inode match the
/// previous snapshot reuses its chunks unread; SQLite databases are copied with the online backup
/// API first; the preferences file is read under the preferences lock. Then the app's tree, its
/// `Manifest.db` and its keychain record are stored as blobs too. An item an app keeps locked for
/// longer than ``BackupOptions/lockTimeout``, or swaps for a symlink or a non-file while it is read,
/// is left out with a warning naming the app and the item, and the snapshot records it
/// (``AppSnapshot/skipped``): one app never holds up the backup of the others. When every app is done, the
/// index of the new blobs is written, and last the snapshot record: a process killed before that
/// leaves no snapshot, only blobs that `prune` removes. A shared lock of the repository is held
/// throughout: backups of other devices run at the same time (each dedups against what the index
/// held when it started), a prune does not (``RepositoryLock``).
public enum Backup {
    /// Runs a backup of `apps` on `home` into `repository`.
    ///
    /// - Parameters:
    ///   - apps: the apps whose data containers are backed up, each installed on `home`.
    ///   - home: the sandbox home the apps are installed on.
    ///   - repository: the repository the snapshot is written to.
    ///   - options: how long to wait for an app's locks.
    ///   - progress: called as the backup moves on, on the backup's thread.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` while a prune holds the
    ///   repository; ``/SandboxCore/SandboxError/Code/notFound`` for an app that is not installed;
    ///   file-system and repository errors.
    ///
    /// The work runs on threads of its own (file reads, SQLite's backup, the repository's
    /// requests block); the task awaits it. It is not cancelled with the task.
    public static func run(
        apps: [AppIdentifier], from home: SandboxHome, to repository: Repository, options: BackupOptions = .standard,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws(SandboxError) -> BackupReport {
        try await OwnedThread.run(name: "sandbox-backup") { () throws(SandboxError) in
            try run(apps: apps, from: home, to: repository, options: options, progress: progress)
        }
    }

    /// ``run(apps:from:to:options:progress:)`` on the calling thread, which it blocks.
    package static func run(
        apps: [AppIdentifier], from home: SandboxHome, to repository: Repository, options: BackupOptions = .standard,
        progress: @escaping (BackupProgress) -> Void = { _ in }
    ) throws(SandboxError) -> BackupReport {
        let containers = try apps.map { (app) throws(SandboxError) in try home.container(for: app) }
        // A restore killed between its keychain write and its exchange: the keychain goes back to
        // the one that matches the container before it is read.
        for app in apps { try Restore.recoverInterrupted(app: app, in: home) }
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "backup")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next run takes over
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // Packs are format 4: an older program must refuse the repository before it can see one.
        try repository.requireFormat(RepositoryConfig.packsVersion)
        repository.forgetIndex()  // another process may have changed it since it was loaded
        let index = try repository.loadedIndex()
        if let unreadable = index.unreadable { throw unreadable }
        let writer = BlobWriter(
            repository: repository, existing: index.blobs, writers: repository.storage.preferredConcurrency,
            packSize: options.packSize)
        defer { writer.stop() }
        var run = BackupRun(
            repository: repository, home: home, scratch: scratch, writer: writer, options: options,
            progress: progress)
        try run.prepare()
        for container in containers {
            // An app presenting the container saves and pauses its writes while it is read.
            try home.coordinating(.backup, of: container.identifier) { () throws(SandboxError) in
                try run.backUp(BackupSource(container), refreshing: lock)
            }
        }
        for group in try run.groups(of: containers) {
            let members = try home.members(of: group.group)
            // Every member presenting the group's container saves and pauses while it is read.
            try home.coordinating(.backup, apps: members) { () throws(SandboxError) in
                try run.backUp(BackupSource(group), refreshing: lock)
            }
        }
        return try run.finish(apps: apps.map(\.rawValue))
    }
}

/// The state of one backup run.
struct BackupRun {
    let repository: Repository
    let home: SandboxHome
    let scratch: ScratchDirectory
    /// Seals and stores file chunks on other threads (the second core).
    let writer: BlobWriter
    let options: BackupOptions
    let progress: (BackupProgress) -> Void
    let chunker: ContentChunker
    var machine = BackupMachine()
    /// Nodes (by index in the app's `nodes`) whose chunk ids are still being hashed: their tickets.
    var pendingChunks: [(node: Int, tickets: [Int])] = []
    var appSnapshots: [AppSnapshot] = []
    /// The parts of the App Groups' containers.
    var groupSnapshots: [AppSnapshot] = []
    var warnings: [String] = []
    /// The items of the app being backed up that were left out.
    var skipped: [String] = []
    /// Every item left out, as `app: path`.
    var incomplete: [String] = []
    var previous: Snapshot?
    var filesTotal = 0
    let started = Date()

    init(
        repository: Repository, home: SandboxHome, scratch: ScratchDirectory, writer: BlobWriter,
        options: BackupOptions, progress: @escaping (BackupProgress) -> Void
    ) {
        self.repository = repository
        self.home = home
        self.scratch = scratch
        self.writer = writer
        self.options = options
        self.progress = progress
        chunker = ContentChunker(parameters: repository.config.chunking)
    }

    /// Finds the parent: this device's latest snapshot, not another device's (a fleet backs up
    /// into one repository), whose unchanged files are taken over unread.
    mutating func prepare() throws(SandboxError) {
        let device = try BackupDevice.of(home)
        previous = try repository.snapshots().last { device.took($0.record) }
    }

    private mutating func advance(_ event: BackupMachine.Event) {
        do {
            progress(try machine.handle(event))
        } catch {
            preconditionFailure("backup event out of order in phase \(error.phase)")
        }
    }

    /// The previous snapshot's nodes of `app` by path, for reuse; empty when there is none or it
    /// cannot be read (then everything is read again, with a warning).
    private mutating func previousNodes(of app: String) -> [Data: TreeNode] {
        guard let previous, let part = previous.record.parts.first(where: { $0.app == app }) else { return [:] }
        do {
            let nodes = try TreeJSON.decode(try repository.loadSplit(part.tree))
            return Dictionary(nodes.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        } catch {
            warnings.append(
                "The previous snapshot's tree of '\(app)' could not be read (\(error)); every file was read again.")
            return [:]
        }
    }

    mutating func backUp(_ source: BackupSource, refreshing lock: RepositoryLock) throws(SandboxError) {
        let app = source.name
        let root = source.root
        let names = PreferencesBackupAccess.fileNames(named: source.preferencesName)
        let preferencesDirectory = ContainerPath(constant: "Library/Preferences")
        let preferencesFile = preferencesDirectory.appendingTrusted(names.file)
        let scanner = try ContainerScanner.scan(root, skipping: [preferencesDirectory.appendingTrusted(names.lock)])
        warnings += scanner.warnings.map { "'\(app)': \($0)" }
        for path in scanner.skipped {
            skipped.append(path.description)
            incomplete.append("\(app): \(path)")
        }
        let items = scanner.items
        var total: Int64 = 0
        for item in items where item.kind == .file { total += Int64(item.info.st_size) }
        advance(.scanned(app: app, files: items.count, bytes: total))
        filesTotal += items.count
        let reusable = previousNodes(of: app)
        // Databases first, so their -wal, -shm and -journal files can be left out. A file unchanged
        // since the previous snapshot is what it was then: its header is not read again (an
        // incremental backup of 100,000 small files opened each of them for 16 bytes).
        var databases: Set<ContainerPath> = []
        for item in items where item.kind == .file && item.info.st_nlink == 1 {
            if DatabaseCopy.companionSuffixes.contains(where: { item.path.description.hasSuffix($0) }) { continue }
            if let previous = reusable[Data(item.pathBytes)], item.isUnchanged(since: previous) {
                if previous.source == DatabaseCopy.source { databases.insert(item.path) }
                continue
            }
            do {
                if try DatabaseCopy.isDatabase(item.path, in: root, size: Int64(item.info.st_size)) {
                    databases.insert(item.path)
                }
            } catch  where Self.leavesItemOut(error) {
                continue  // swapped since the scan: read as what it is now, or left out then
            }
        }
        var firstLinks: [UInt64: Data] = [:]  // inode → first path, for hard links
        var nodes: [TreeNode] = []
        var bytes: Int64 = 0
        for item in items {
            try lock.refreshIfDue()
            if item.kind == .file && DatabaseCopy.isCompanion(item.path, ofAnyOf: databases) {
                advance(.fileDone)
                continue
            }
            var node = item.node()
            if item.kind == .file {
                if item.info.st_nlink > 1, let first = firstLinks[node.inode] {
                    node.hardLinkTo = first
                } else {
                    let tickets: [Int]?
                    do {
                        tickets = try storeContents(
                            of: item, into: &node, source: source,
                            isDatabase: databases.contains(item.path), isPreferences: item.path == preferencesFile,
                            previous: reusable[node.path])
                    } catch  where Self.leavesItemOut(error) {
                        warnings.append("'\(app)': '\(item.path)' was not backed up: \(error.message)")
                        skipped.append(item.path.description)
                        incomplete.append("\(app): \(item.path)")
                        advance(.fileDone)
                        continue
                    }
                    if item.info.st_nlink > 1 { firstLinks[node.inode] = node.path }
                    if let tickets { pendingChunks.append((nodes.count, tickets)) }
                    bytes += node.size
                }
            }
            nodes.append(node)
            advance(.fileDone)
        }
        for (index, tickets) in pendingChunks { nodes[index].chunks = try writer.ids(for: tickets) }
        pendingChunks = []
        try storeRecords(of: source, nodes: nodes, bytes: bytes)
        advance(.appDone)
    }

    /// Whether `error`, met reading one item, leaves that item out rather than ending the backup:
    /// the app holds it locked, or swapped it for a symlink or something that is not a file.
    static func leavesItemOut(_ error: SandboxError) -> Bool {
        [.itemLocked, .symlinkLoop, .escapesContainer, .notARegularFile].contains(error.code)
    }

    /// Stores the contents of `item` (or reuses the previous snapshot's chunks) and records them
    /// in `node`.
    ///
    /// - Returns: the tickets of the chunks being hashed (``BlobWriter/ids(for:)``), or `nil` when
    ///   the previous snapshot's chunks were reused.
    private mutating func storeContents(
        of item: ScannedItem, into node: inout TreeNode, source: BackupSource, isDatabase: Bool, isPreferences: Bool,
        previous: TreeNode?
    ) throws(SandboxError) -> [Int]? {
        if !isDatabase, let previous, item.isUnchanged(since: previous), let chunks = previous.chunks,
            previous.source == nil || isPreferences
        {
            node.chunks = chunks
            node.source = previous.source
            advance(.stored(bytesRead: 0, bytesWritten: 0))
            return nil
        }
        let deadline = ContinuousClock.now + options.lockTimeout
        let root = source.root
        if isDatabase {
            guard
                let copyPath = try DatabaseCopy.copy(
                    item.path, in: root, into: scratch, waitingUntil: deadline, timeout: options.lockTimeout)
            else {
                return try chunk(item.path, in: root, into: &node)  // no longer a database: read as it is now
            }
            defer { _ = try? scratch.root.removeItem(at: copyPath) }  // scratch clean-up only
            node.source = DatabaseCopy.source
            return try chunk(copyPath, in: scratch.root, into: &node)
        } else if isPreferences {
            node.source = "preferences-lock"
            var chunked = node
            var tickets: [Int] = []
            let locked: Bool? = try PreferencesBackupAccess.withFileLocked(
                root: root, name: source.preferencesName, waitingUntil: deadline
            ) { (path) throws(SandboxError) in
                tickets = try chunk(path, in: root, into: &chunked)
                return true
            }
            guard locked != nil else {
                throw SandboxError(
                    .itemLocked,
                    "The app held the lock of its preferences '\(item.path)' for longer than the backup waits (\(options.lockTimeout)); they were not backed up. Back up again when the app is idle, or wait longer (BackupOptions.lockTimeout).",
                    path: item.path.description)
            }
            node = chunked
            return tickets
        } else {
            return try chunk(item.path, in: root, into: &node)
        }
    }

    /// Hands the chunks of the file at `path` to the writers and records the size read in `node`.
    ///
    /// - Returns: the chunks' tickets, in order (their ids come from ``BlobWriter/ids(for:)``).
    private mutating func chunk(
        _ path: ContainerPath, in root: ConfinedRoot, into node: inout TreeNode, countingAsRead: Bool = true,
        kind: BlobKind = .data
    ) throws(SandboxError) -> [Int] {
        var tickets: [Int] = []
        let writer = writer
        let size = try chunker.forEachChunk(of: path, in: root) { (bytes) throws(SandboxError) in
            tickets.append(try writer.enqueue(bytes, kind: kind))
        }
        node.size = size
        advance(.stored(bytesRead: countingAsRead ? size : 0, bytesWritten: writer.takeWritten()))
        return tickets
    }

    /// Stores `bytes` (a tree, a keychain record) as content-defined chunks through the writers.
    ///
    /// - Returns: the chunks' ids.
    private func storeSplit(_ bytes: [UInt8]) throws(SandboxError) -> [String] {
        try writer.storeSplit(bytes, chunking: repository.config.chunking)
    }

    private mutating func storeRecords(of source: BackupSource, nodes: [TreeNode], bytes: Int64) throws(SandboxError) {
        let app = source.name
        let manifestName = "Manifest-\(UInt64.random(in: 0...UInt64.max)).db"
        // Each node encoded once, for the manifest's row and the tree, whose chunks are stored as
        // they are cut (the tree is never held whole).
        var treeJSON = TreeJSON()
        var treeChunks = SplitStream(writer: writer, chunking: repository.config.chunking)
        try ManifestDatabase.write(app: app, snapshotTime: started, to: scratch.hostPath(manifestName)) { insert in
            for node in nodes {
                try insert(node, treeJSON.append(node))
                if treeJSON.pendingByteCount >= 1 << 16 {
                    try treeJSON.takeBytes().withBytes { (bytes) throws(SandboxError) in try treeChunks.append(bytes) }
                }
            }
        }
        try treeJSON.finish().withBytes { (bytes) throws(SandboxError) in try treeChunks.append(bytes) }
        let tree = try treeChunks.finish()
        let manifestPath = try ContainerPath(manifestName)
        var manifestNode = TreeNode(
            path: Data(), kind: .file, mode: 0, uid: 0, gid: 0, size: 0,
            modified: Timestamp(seconds: 0, nanoseconds: 0),
            accessed: nil, extendedAttributes: nil, chunks: nil, target: nil,
            hardLinkTo: nil, source: nil, inode: 0, device: 0, changed: Timestamp(seconds: 0, nanoseconds: 0))
        let manifest = try writer.ids(
            for: try chunk(manifestPath, in: scratch.root, into: &manifestNode, countingAsRead: false, kind: .tree))
        _ = try? scratch.root.removeItem(at: manifestPath)  // scratch clean-up only
        var keychain: String?
        if let record = try KeychainRecord.capture(
            home: home, target: source.target, portable: repository.cipher.isEncrypted)
        {
            keychain = try storeSplit(RepositoryJSON.encode(record)).joined(separator: ",")
        }
        advance(.stored(bytesRead: 0, bytesWritten: writer.takeWritten()))
        let part = AppSnapshot(
            app: app, tree: tree, manifest: manifest, keychain: keychain,
            files: nodes.count, bytes: bytes, skipped: skipped.isEmpty ? nil : skipped)
        if case .group = source.target { groupSnapshots.append(part) } else { appSnapshots.append(part) }
        skipped = []
    }

    mutating func finish(apps: [String]) throws(SandboxError) -> BackupReport {
        let packs = try writer.drain()  // every pack stored before anything refers to it
        var indexBytes = writer.takeWritten()
        try repository.storage.synchronize()  // the packs are durable before anything refers to them
        for id in try repository.storeIndex(IndexContents(packs: packs)) {
            indexBytes += try repository.storage.size(of: ObjectName(.index, id)) ?? 0
        }
        repository.forgetIndex()
        advance(.indexWritten(bytesWritten: indexBytes))
        // A program that knows only the apps' parts must refuse the repository before it can see
        // a snapshot with a group's part (its prune would delete the group's blobs).
        if !groupSnapshots.isEmpty { try repository.requireFormat(RepositoryConfig.partsVersion) }
        let record = SnapshotRecord(
            time: started, hostname: ProcessInfo.processInfo.hostName, device: try DeviceIdentity.id(of: home),
            home: home.location, apps: appSnapshots, groups: groupSnapshots.isEmpty ? nil : groupSnapshots,
            parent: previous?.id)
        let id = try repository.storeRecord(record, kind: .snapshot)
        let final = machine.progress
        advance(.snapshotWritten(id: id))
        return BackupReport(
            snapshot: id, apps: apps, files: filesTotal, bytesRead: final.bytesDone, bytesTotal: final.bytesTotal,
            bytesStored: final.bytesStored, warnings: warnings, incomplete: incomplete)
    }
}
