import Foundation
import Sandbox
import Synchronization

/// The session's checkpoint: one small JSON file per task in `<session>/tasks/`, each replaced
/// atomically (write, then rename) on every change of phase, validator or length — so a session
/// re-created after SIGKILL finds each task as it last was, and a change costs the same with 1 task
/// or 10,000. Pauses, failures and cancellations are also fsync'd (`.durable`), as a power cut
/// would otherwise lose them.
///
/// A new task's record is written at its first change that may not wait (``update(_:durable:deferring:_:)``):
/// a task killed before its record was written is forgotten, and its partial file is swept by the
/// next session. A small transfer's acceptance and hand-over may wait (see
/// ``DownloadSession/Configuration/smallTransferLimit``), so a small download writes one record,
/// once, when it completes: every record written costs an inode, and every record replaced frees
/// one, which ext4 makes slow to allocate again under churn (`recently_deleted` scans). A completed
/// record goes to the ``FinishedRecordLog`` instead of a file of its own (a kill between its append
/// and the removal of the task's file leaves both: the log wins, and the next session removes the
/// file), and so do the record's later changes.
///
/// Only the records of tasks not completed stay in memory: a completed record leaves it once its
/// line is in the log (the session reads it no more, and a queue of 100,000 downloads would
/// otherwise hold 100,000 records), and a store opened on a folder loads only the others. Listings
/// read completed tasks from the log (``read(root:folder:keepingCompleted:)``).
final class SessionStore: Sendable {
    let root: ConfinedRoot
    let folder: ContainerPath
    private let log: FinishedRecordLog
    private struct State: Sendable {
        /// The records of tasks not completed, and of completed ones until their line is logged.
        var records: [Int: TaskRecord]
        var nextIdentifier: Int
        /// The records not yet on disk.
        var unwritten: Set<Int> = []
        /// The records in ``log`` (and in no file of their own), most of them no longer in memory:
        /// ranges of identifiers, which tasks complete in about the order they were made.
        var logged: RangeSet<Int>
    }

    /// What a checkpoint folder holds.
    struct Contents {
        /// The records, by identifier (without the completed ones unless asked).
        var records: [TaskRecord] = []
        /// The identifier after the largest of every record, completed ones included.
        var nextIdentifier = 1
        /// The records that live in the finished-record log.
        var logged = RangeSet<Int>()
        /// The records whose file the log supersedes (a kill came between the two).
        var superseded: [Int] = []
        /// The length of the log's whole lines.
        var logLength: Int64 = 0
    }

    /// The records, held only to read or change them in memory: never during a file's write.
    private let state: Mutex<State>
    /// Held while the checkpoint is written (taken before ``state``), so writes of a record
    /// happen in the order of its changes, and readers of the records never wait for the disk
    /// (on the cooperative pool's two threads, a reader blocked on a writer stalled every task).
    private let writer = Mutex(())

    /// Opens (creating if needed) the store in `folder` and loads its records of tasks not completed.
    ///
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause)
    ///   when the folder cannot be made or a record read.
    init(root: ConfinedRoot, folder: ContainerPath) throws(SandboxError) {
        self.root = root
        self.folder = folder
        do throws(SandboxError) {
            try root.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(error, doing: "create the checkpoint folder '\(folder)'")
        }
        let contents = try Self.read(root: root, folder: folder, keepingCompleted: false)
        for id in contents.superseded { try Self.removeFile(of: id, root: root, folder: folder) }
        log = try FinishedRecordLog(root: root, folder: folder, length: contents.logLength)
        state = Mutex(
            State(
                records: Dictionary(uniqueKeysWithValues: contents.records.map { ($0.id, $0) }),
                nextIdentifier: contents.nextIdentifier, logged: contents.logged))
    }

    /// The records in `folder`, completed ones included, by identifier; a missing folder has none.
    ///
    /// - Throws: the core's code when a record cannot be read, ``/SandboxCore/SandboxError/Code/corrupt`` when
    ///   one is damaged, and the errors of ``FinishedRecordLog/forEachLine(root:path:_:)``.
    static func load(root: ConfinedRoot, folder: ContainerPath) throws(SandboxError) -> [TaskRecord] {
        try read(root: root, folder: folder, keepingCompleted: true).records
    }

    /// What `folder` holds: the task files, then the finished-record log's lines over them (read
    /// a line at a time); the completed records only when `keepingCompleted`.
    ///
    /// - Throws: as ``load(root:folder:)``.
    static func read(root: ConfinedRoot, folder: ContainerPath, keepingCompleted: Bool) throws(SandboxError) -> Contents
    {
        let names: [String]
        do throws(SandboxError) {
            names = try root.fileNames(at: folder)
        } catch  where error.code == .notFound {
            return Contents()
        } catch {
            throw .fileSystem(error, doing: "list the checkpoint folder '\(folder)'")
        }
        var records: [Int: TaskRecord] = [:]
        for name in names where name.hasSuffix(".json") && Int(name.dropLast(5)) != nil {
            let file = try path(name, in: folder)
            let bytes: [UInt8]
            do throws(SandboxError) {
                bytes = try root.readContents(of: file)
            } catch {
                throw .fileSystem(error, doing: "read the checkpoint '\(file)'")
            }
            let record = try TaskRecord.decoding(bytes, path: file.description)
            records[record.id] = record
        }
        var contents = Contents()
        contents.nextIdentifier = (records.keys.max() ?? 0) + 1
        contents.logLength = try FinishedRecordLog.forEachRecord(root: root, folder: folder) { record in
            if records[record.id] != nil && !contents.logged.contains(record.id) {
                contents.superseded.append(record.id)
            }
            contents.logged.insert(contentsOf: record.id..<record.id + 1)
            contents.nextIdentifier = max(contents.nextIdentifier, record.id + 1)
            records[record.id] = keepingCompleted || !record.isCompleted ? record : nil
        }
        contents.records = records.values.filter { keepingCompleted || !$0.isCompleted }.sorted { $0.id < $1.id }
        return contents
    }

    /// Deletes the file of record `id`, if it is there.
    private static func removeFile(of id: Int, root: ConfinedRoot, folder: ContainerPath) throws(SandboxError) {
        let file = try path("\(id).json", in: folder)
        do throws(SandboxError) {
            _ = try root.removeItem(at: file)  // 0 when already gone
        } catch {
            throw .fileSystem(error, doing: "remove the checkpoint '\(file)'")
        }
    }

    /// The file `name` in `folder`.
    ///
    /// - Throws: the core's code when `name` is not one plain name (names made here always are).
    static func path(_ name: String, in folder: ContainerPath) throws(SandboxError) -> ContainerPath {
        do throws(SandboxError) {
            return try folder.appending(name)
        } catch {
            throw .fileSystem(error, doing: "name the file '\(name)' in '\(folder)'")
        }
    }

    /// The records in memory: those of tasks not completed.
    var records: [TaskRecord] { state.withLock { $0.records.values.sorted { $0.id < $1.id } } }

    /// How many records are in memory.
    var residentCount: Int { state.withLock { $0.records.count } }

    func record(_ id: Int) -> TaskRecord? { state.withLock { $0.records[id] } }

    /// Adds a record with a new identifier, made by `make`, and removes the records among `replaced`
    /// that are not unfinished. With records to replace, the new one is written at once, before
    /// they are removed (a kill in between leaves both, and the next session supersedes the older
    /// by the same rule); otherwise at its first ``update(_:durable:deferring:_:)`` that may not wait.
    func add(replacing replaced: Set<Int> = [], _ make: (Int) -> TaskRecord) throws(SandboxError) -> TaskRecord {
        let added: TaskRecord
        if replaced.isEmpty {
            added = state.withLock { state in
                let added = make(state.nextIdentifier)
                state.nextIdentifier += 1
                state.records[added.id] = added
                state.unwritten.insert(added.id)
                return added
            }
        } else {
            added = try writing { () throws(SandboxError) in
                let added = state.withLock { state in
                    defer { state.nextIdentifier += 1 }
                    return make(state.nextIdentifier)
                }
                try write(added, durable: false)
                state.withLock { $0.records[added.id] = added }
                return added
            }
        }
        for id in replaced where record(id)?.isUnfinished == false { try remove(id) }
        return added
    }

    /// Changes the record `id` (if present) and writes it; `durable` also fsyncs it. The change is
    /// in memory before the write: when the write fails, the caller fails its task with the error,
    /// and the next write of the record carries the change.
    ///
    /// - Parameter deferring: whether the change may stay in memory when the record was never
    ///   written: a kill then forgets the task, which is fine for a small download fetched again
    ///   from zero. A record on disk is always written, so the checkpoint never lags behind it.
    @discardableResult
    func update(
        _ id: Int, durable: Bool = false, deferring: Bool = false, _ change: (inout TaskRecord) -> Void
    ) throws(SandboxError) -> TaskRecord? {
        if deferring {
            // In memory only, without waiting for another record's write, when it was never written.
            let deferred = state.withLock { state -> TaskRecord? in
                guard state.unwritten.contains(id), var record = state.records[id] else { return nil }
                change(&record)
                record.updatedAt = Date()
                state.records[id] = record
                return record
            }
            if let deferred { return deferred }
        }
        return try writing { () throws(SandboxError) in
            // Marked written before the write, so a change that may wait, made meanwhile, waits for
            // this lock and is written after it rather than left behind in memory.
            let changed = state.withLock { state -> (record: TaskRecord, hadFile: Bool, logs: Bool)? in
                guard var record = state.records[id] else { return nil }
                change(&record)
                record.updatedAt = Date()
                state.records[id] = record
                let hadFile = state.unwritten.remove(id) == nil && !state.logged.contains(id)
                if record.isCompleted { state.logged.insert(contentsOf: id..<id + 1) }
                return (record, hadFile, state.logged.contains(id))
            }
            guard let changed else { return nil }
            if changed.logs {
                try log.append(changed.record, durable: durable)
                if changed.hadFile { try Self.removeFile(of: id, root: root, folder: folder) }
                // Logged and complete: the session reads it no more (a failed write leaves it, for
                // the failure that follows). No other change came meanwhile: they wait for `writer`.
                if changed.record.isCompleted { state.withLock { _ = $0.records.removeValue(forKey: id) } }
            } else {
                try write(changed.record, durable: durable)
            }
            return changed.record
        }
    }

    /// Removes the record `id`, in memory or not; a logged one by rewriting the log from its file.
    ///
    /// - Throws: the core's code when the checkpoint cannot be written,
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged line of the log.
    func remove(_ id: Int) throws(SandboxError) {
        try writing { () throws(SandboxError) in
            let (unwritten, logged) = state.withLock { ($0.unwritten.contains(id), $0.logged.contains(id)) }
            if logged {
                try log.rewrite(removing: id)
            } else if !unwritten {
                try Self.removeFile(of: id, root: root, folder: folder)
            }
            state.withLock { state in
                state.records[id] = nil
                state.unwritten.remove(id)
                state.logged.remove(contentsOf: id..<id + 1)
            }
        }
    }

    private func write(_ record: TaskRecord, durable: Bool) throws(SandboxError) {
        try write(try record.encoded(), to: try Self.path("\(record.id).json", in: folder), durable: durable)
    }

    private func write(_ bytes: [UInt8], to file: ContainerPath, durable: Bool) throws(SandboxError) {
        do throws(SandboxError) {
            try root.writeContents(bytes, to: file, options: durable ? [.atomic, .durable] : .atomic)
        } catch {
            throw .fileSystem(error, doing: "checkpoint the download session to '\(file)'")
        }
    }

    /// Runs `body` holding ``writer``.
    private func writing<R>(_ body: () throws(SandboxError) -> R) throws(SandboxError) -> R {
        let result: Result<R, SandboxError> = writer.withLock { _ in
            do throws(SandboxError) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
