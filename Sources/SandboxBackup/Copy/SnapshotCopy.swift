import Foundation
import SandboxCore

/// Copies snapshots from one repository to another (local or S3, encrypted or not, either way),
/// as restic's `copy`: every blob a snapshot names that the destination lacks is read from the
/// source — decrypted in memory and checked against its id, never written to disk in plaintext —
/// and stored through the destination's writers, sealed under its key. Blob ids are keyed per
/// encrypted repository, so the trees are rewritten with the destination's ids (and split by its
/// chunk sizes), then the destination's index is written, and last one snapshot record for each
/// copied snapshot: the same time, host, device, home and apps, and ``SnapshotRecord/original``
/// naming the snapshot first taken. A snapshot whose original the destination holds a copy of is
/// skipped, so copying twice copies nothing. A failure (a damaged source blob) leaves the
/// destination without the new snapshots: only blobs no snapshot refers to, which `prune` removes.
///
/// The source and the destination are each held under a shared lock (as a restore and a backup
/// hold them): backups and other copies may write into the destination at the same time.
public enum SnapshotCopy {
    /// Copies `snapshots` of `source` into `destination`.
    ///
    /// - Parameters:
    ///   - snapshots: ids or unique prefixes (at least 4 hex digits) of the source's snapshots;
    ///     empty for every snapshot.
    ///   - app: when given, only the snapshots holding this app (or App Group part) are copied.
    ///   - source: the repository read.
    ///   - destination: the repository written.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryLocked`` when a prune holds the source
    ///   or the destination; ``/SandboxCore/SandboxError/Code/notFound`` for a
    ///   snapshot no single id matches; ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming a
    ///   source blob or tree that is missing or damaged (the destination then gets no snapshot), or
    ///   a destination index that cannot be read; the storages' errors.
    ///
    /// The work runs on threads of its own; the task awaits it. It is not cancelled with the task.
    public static func run(
        snapshots: [String] = [], app: String? = nil, from source: Repository, to destination: Repository
    ) async throws(SandboxError) -> CopyReport {
        try await OwnedThread.run(name: "sandbox-copy") { () throws(SandboxError) in
            try run(snapshots: snapshots, app: app, from: source, to: destination)
        }
    }

    /// ``run(snapshots:app:from:to:)`` on the calling thread, which it blocks.
    package static func run(
        snapshots prefixes: [String] = [], app: String? = nil, from source: Repository, to destination: Repository
    ) throws(SandboxError) -> CopyReport {
        let sourceLock = try RepositoryLock.acquireShared(source.storage, operation: "copy")
        defer { _ = try? sourceLock.release() }  // a failed release leaves a stale lock the next run takes over
        let destinationLock = try RepositoryLock.acquireShared(destination.storage, operation: "copy")
        defer { _ = try? destinationLock.release() }  // as above
        try destination.requireFormat(RepositoryConfig.packsVersion)
        destination.forgetIndex()  // another process may have changed it since it was loaded
        let index = try destination.loadedIndex()
        if let unreadable = index.unreadable { throw unreadable }
        var selected: [Snapshot] = []
        if prefixes.isEmpty {
            selected = try source.snapshots()
        } else {
            for prefix in prefixes { selected.append(try source.snapshot(matching: prefix)) }
        }
        if let app { selected = selected.filter { $0.record.parts.contains { $0.app == app } } }
        let held = Set(try destination.snapshots().map { $0.record.original ?? $0.id })
        var report = CopyReport()
        var seen: Set<String> = []
        var toCopy: [Snapshot] = []
        for snapshot in selected where seen.insert(snapshot.id).inserted {
            if held.contains(snapshot.record.original ?? snapshot.id) {
                report.alreadyCopied.append(snapshot.id)
            } else {
                toCopy.append(snapshot)
            }
        }
        guard !toCopy.isEmpty else { return report }
        let writer = BlobWriter(
            repository: destination, existing: index.blobs, writers: destination.storage.preferredConcurrency)
        defer { writer.stop() }
        var blobs = try BlobTranslation(
            source: source, destination: destination, writer: writer, destinationIndex: index.blobs
        ) { () throws(SandboxError) in
            try sourceLock.refreshIfDue()
            try destinationLock.refreshIfDue()
        }
        var records: [(source: String, record: SnapshotRecord)] = []
        for snapshot in toCopy {
            var record = snapshot.record
            record.apps = try record.apps.map { (part) throws(SandboxError) in
                try copy(part, of: snapshot, into: destination, blobs: &blobs)
            }
            record.groups = try record.groups?.map { (part) throws(SandboxError) in
                try copy(part, of: snapshot, into: destination, blobs: &blobs)
            }
            record.parent = nil  // names a snapshot of the source
            record.original = snapshot.record.original ?? snapshot.id
            records.append((snapshot.id, record))
        }
        let packs = try writer.drain()  // every pack stored before anything refers to it
        report.bytesWritten = writer.takeWritten()
        try destination.storage.synchronize()
        for id in try destination.storeIndex(IndexContents(packs: packs)) {
            report.bytesWritten += try destination.storage.size(of: ObjectName(.index, id)) ?? 0
        }
        destination.forgetIndex()
        if records.contains(where: { $0.record.groups != nil }) {
            try destination.requireFormat(RepositoryConfig.partsVersion)
        }
        for (id, record) in records {
            let copied = try destination.storeRecord(record, kind: .snapshot)
            report.copied.append(CopyReport.Copied(source: id, destination: copied))
        }
        report.blobsRead = blobs.blobsRead
        return report
    }

    /// `part` with its file contents, tree, `Manifest.db` and keychain record in `destination`.
    private static func copy(
        _ part: AppSnapshot, of snapshot: Snapshot, into destination: Repository, blobs: inout BlobTranslation
    ) throws(SandboxError) -> AppSnapshot {
        var nodes = try SnapshotTree.nodes(of: part, in: snapshot, from: blobs.source)
        let contents = try blobs.translate(nodes.flatMap { $0.chunks ?? [] }, kind: .data)
        var position = 0
        for index in nodes.indices {
            guard let chunks = nodes[index].chunks else { continue }
            nodes[index].chunks = Array(contents[position..<position + chunks.count])
            position += chunks.count
        }
        var copied = part
        let chunking = destination.config.chunking
        copied.tree = try blobs.writer.storeSplit(TreeJSON.encode(nodes), chunking: chunking)
        // The Manifest.db names no blob a restore reads (its items' JSON is descriptive): its
        // blobs are copied as they are.
        copied.manifest = try blobs.translate(part.manifest, kind: .tree)
        if let keychain = part.keychain {
            var plain = try blobs.source.loadSplit(keychain.split(separator: ",").map(String.init))
            if !destination.cipher.isEncrypted {
                // Items that may move to other devices are kept only under a repository's key.
                var record: KeychainRecord
                do {
                    record = try RepositoryJSON.decode(KeychainRecord.self, from: plain, name: keychain)
                } catch {
                    throw SandboxError(
                        .repositoryDamaged,
                        "The keychain record of '\(part.app)' in snapshot \(snapshot.shortID) cannot be read: \(error.detail).",
                        path: keychain)
                }
                record.portable = nil
                plain = RepositoryJSON.encode(record)
            }
            copied.keychain = try blobs.writer.storeSplit(plain, chunking: chunking).joined(separator: ",")
        }
        return copied
    }
}
