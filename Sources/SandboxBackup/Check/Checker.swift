import Foundation
import SandboxCore

/// What ``Checker/check(_:readingData:)`` found.
public struct CheckReport: Sendable, Hashable, Codable {
    /// Snapshots checked.
    public var snapshots: Int
    /// Blobs the repository holds (in packs an index lists, and loose).
    public var blobs: Int
    /// Blobs whose contents were read and re-hashed (`--read-data`).
    public var blobsRead: Int
    /// Each problem, in a sentence naming the object and what it affects.
    public var problems: [String]
    /// The files (`<snapshot> <app>:<path>`) a missing or damaged blob affects.
    public var affectedFiles: [String]
    /// What is not damage but a person should know: snapshots that left items out (an app held
    /// them locked), a config that is not authenticated.
    public var warnings: [String] = []
    /// Data objects no index lists and no snapshot refers to (a backup killed before its index):
    /// not damage; prune removes them.
    public var unreferencedObjects: [String] = []
    /// Blobs stored in more than one pack: backups that ran at the same time (a fleet of devices
    /// on one repository) each stored them, neither seeing the other's index. Not damage: a
    /// restore reads either copy, and `prune` keeps one.
    public var duplicateBlobs: Int = 0

    /// Whether no problem was found (warnings are not problems).
    public var isHealthy: Bool { problems.isEmpty }
}

/// Checks a repository as `restic check` does: structure first — the config (every field in the
/// range backup and restore can use, and its authentication when encrypted), every index and
/// snapshot record opens and matches its name, every tree reads, every blob a snapshot refers to
/// exists — then, with `readingData`, every blob is read and re-hashed (and authenticated, when
/// encrypted), and the files a bad blob affects are named.
public enum Checker {
    /// Holds a shared lock of the repository throughout, so that no prune removes what it reads.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` while a prune runs; the
    ///   storage's errors (a problem found is reported, not thrown).
    ///
    /// The work runs on a thread of its own (the repository's reads block); the task awaits it.
    ///
    /// - Parameters:
    ///   - repository: the repository to check.
    ///   - readingData: also read every blob and check it against its id (slow: every byte).
    public static func check(_ repository: Repository, readingData: Bool) async throws(SandboxError) -> CheckReport {
        try await OwnedThread.run(name: "sandbox-check") { () throws(SandboxError) in
            try check(repository, readingData: readingData)
        }
    }

    /// ``check(_:readingData:)`` on the calling thread, which it blocks.
    package static func check(_ repository: Repository, readingData: Bool) throws(SandboxError) -> CheckReport {
        let lock = try RepositoryLock.acquireShared(repository.storage, operation: "check")
        defer { _ = try? lock.release() }  // a failed release leaves a stale lock the next prune takes over
        var report = CheckReport(snapshots: 0, blobs: 0, blobsRead: 0, problems: [], affectedFiles: [])
        // The config as stored now: it may have changed since the repository was opened.
        if let problem = try repository.storedConfigProblem() { report.problems.append(problem) }
        if repository.configAuthentication == .legacy {
            report.warnings.append(
                "The 'config' of the encrypted repository '\(repository.storage.location)' is not authenticated (an older version wrote it): its fields were checked, and the next backup with the password authenticates it."
            )
        }
        var packs: [BlobKey: IndexedPack] = [:]
        var indexedLoose: Set<String> = []
        for name in try repository.storage.list(.index) {
            do {
                let contents = try repository.loadIndexContents(name)
                for pack in contents.packs where packs[pack.id] == nil { packs[pack.id] = pack }
                for blob in contents.loose { indexedLoose.insert(blob.id.hex) }
            } catch {
                report.problems.append(error.message)
            }
        }
        let objects = Set(try repository.storage.list(.data).map(\.name))
        var present = objects.subtracting(packs.keys.map(\.hex))  // loose blobs
        var readablePacks: [IndexedPack] = []
        var packed: Set<BlobKey> = []
        for pack in packs.values.sorted(by: { $0.id < $1.id }) {
            let name = ObjectName(.data, pack.id.hex)
            let implied = pack.impliedSize(sealOverhead: repository.sealOverhead)
            guard objects.contains(pack.id.hex), let size = try repository.storage.size(of: name) else {
                report.problems.append(
                    "The pack '\(name)' an index lists is missing; it holds \(pack.blobs.count) blob(s).")
                continue
            }
            guard size == implied else {
                report.problems.append(
                    "The pack '\(name)' is \(size) bytes, where its index implies \(implied): it is truncated or damaged; it holds \(pack.blobs.count) blob(s)."
                )
                continue
            }
            readablePacks.append(pack)
            for blob in pack.blobs where !packed.insert(blob.entry.id).inserted { report.duplicateBlobs += 1 }
        }
        present.formUnion(packed.map(\.hex))
        report.blobs = present.count
        // blob → the files it belongs to
        var users: [String: [String]] = [:]
        for name in try repository.storage.list(.snapshot) {
            let record: SnapshotRecord
            do {
                record = try repository.loadRecord(SnapshotRecord.self, name)
            } catch {
                report.problems.append(error.message)
                continue
            }
            report.snapshots += 1
            let short = String(name.name.prefix(8))
            let incomplete = record.incompleteItems
            if !incomplete.isEmpty {
                report.warnings.append(
                    "Snapshot \(short) is incomplete: it left out \(incomplete.joined(separator: ", ")) (the app held them locked or swapped them while they were read)."
                )
            }
            for part in record.parts {
                for id in part.tree + part.manifest + (part.keychain?.split(separator: ",").map(String.init) ?? []) {
                    users[id, default: []].append(
                        "\(short) \(part.app): (its \(part.tree.contains(id) ? "tree" : part.manifest.contains(id) ? "Manifest.db" : "keychain"))"
                    )
                }
                let nodes: [TreeNode]
                do {
                    nodes = try JSONDecoder.repository.decode(
                        [TreeNode].self, from: Data(try repository.loadSplit(part.tree)))
                } catch let error as SandboxError {
                    report.problems.append(
                        "The tree of '\(part.app)' in snapshot \(short) cannot be read: \(error.message)")
                    continue
                } catch {
                    report.problems.append(
                        "The tree of '\(part.app)' in snapshot \(short) cannot be decoded: \(error).")
                    continue
                }
                for node in nodes {
                    for id in node.chunks ?? [] {
                        users[id, default: []].append("\(short) \(part.app):\(node.displayPath)")
                    }
                }
            }
        }
        var bad: Set<String> = []
        for (id, files) in users where !present.contains(id) {
            bad.insert(id)
            report.problems.append(
                "The blob 'data/\(id.prefix(2))/\(id)' is missing; it holds part of \(files.count) file(s).")
        }
        let loose = objects.subtracting(packs.keys.map(\.hex))
        report.unreferencedObjects = loose.filter { !indexedLoose.contains($0) && users[$0] == nil }
            .map { ObjectName(.data, $0).description }.sorted()
        if readingData {
            // Several packs (and loose blobs) read at once, the storage's concurrency; each thread
            // holds one pack; the findings in the order of the packs, then of the loose ids.
            let threads = repository.storage.preferredConcurrency
            let packsToRead = readablePacks
            let packOutcomes = try ParallelCalls.map(
                packsToRead.count, threads: threads, name: "check-reader", between: lock.refreshIfDue
            ) { index in
                Result { () throws(SandboxError) in try PackCheck.verify(packsToRead[index], in: repository) }
            }
            for (pack, outcome) in zip(packsToRead, packOutcomes) {
                report.blobsRead += pack.blobs.count
                let finding = try outcome.get()
                report.problems += finding.problems
                for (id, reason) in finding.damaged where bad.insert(id).inserted {
                    report.problems.append(
                        "The blob '\(id)' is damaged: \(reason) It holds part of \(users[id]?.count ?? 0) file(s).")
                }
            }
            let looseIDs = loose.sorted().filter { indexedLoose.contains($0) || users[$0] != nil }
            let looseOutcomes = try ParallelCalls.map(
                looseIDs.count, threads: threads, name: "check-reader", between: lock.refreshIfDue
            ) { index in
                Result { () throws(SandboxError) in _ = try repository.loadLooseBlob(looseIDs[index]) }
            }
            for (id, outcome) in zip(looseIDs, looseOutcomes) {
                report.blobsRead += 1
                guard case .failure(let error) = outcome else { continue }
                bad.insert(id)
                report.problems.append(
                    "The blob 'data/\(id.prefix(2))/\(id)' is damaged: \(error.message) It holds part of \(users[id]?.count ?? 0) file(s)."
                )
            }
        }
        report.affectedFiles = Array(Set(bad.flatMap { users[$0] ?? [] })).sorted()
        return report
    }
}
