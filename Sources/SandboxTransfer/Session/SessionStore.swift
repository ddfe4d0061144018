import Foundation
import Sandbox
import Synchronization

/// The session's checkpoint: one small JSON file per task in `<session>/tasks/`, each replaced
/// atomically (write, then rename) on every change of phase, validator or length — so a session
/// re-created after SIGKILL finds each task as it last was, and a change costs the same with 1 task
/// or 10,000. Pauses, failures and cancellations are also fsync'd (`.durable`), as a power cut
/// would otherwise lose them.
///
/// A new task's record is written at its first change (when its response is accepted, before any
/// byte reaches its partial file): a task killed before that had nothing to resume, and every
/// file written costs an inode allocation, which ext4 makes slow under churn.
final class SessionStore: Sendable {
    let root: ConfinedRoot
    let folder: ContainerPath
    private struct State: Sendable {
        var records: [Int: TaskRecord]
        var nextIdentifier: Int
    }

    private let state: Mutex<State>

    /// Opens (creating if needed) the store in `folder` and loads its records.
    ///
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause)
    ///   when the folder cannot be made or a record read.
    init(root: ConfinedRoot, folder: ContainerPath) throws(TransferError) {
        self.root = root
        self.folder = folder
        do throws(SandboxError) {
            try root.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(error, doing: "create the checkpoint folder '\(folder)'")
        }
        let records = try Self.load(root: root, folder: folder)
        let next = (records.map(\.id).max() ?? 0) + 1
        state = Mutex(
            State(records: Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0) }), nextIdentifier: next))
    }

    /// The records in `folder`, by identifier; a missing folder has none.
    ///
    /// - Throws: the core's code when a record cannot be read, ``TransferError/Code/corrupt`` when
    ///   one is damaged.
    static func load(root: ConfinedRoot, folder: ContainerPath) throws(TransferError) -> [TaskRecord] {
        let names: [String]
        do throws(SandboxError) {
            names = try root.fileNames(at: folder)
        } catch  where error.code == .notFound {
            return []
        } catch {
            throw .fileSystem(error, doing: "list the checkpoint folder '\(folder)'")
        }
        var records: [TaskRecord] = []
        for name in names where name.hasSuffix(".json") && Int(name.dropLast(5)) != nil {
            let file = try path(name, in: folder)
            let bytes: [UInt8]
            do throws(SandboxError) {
                bytes = try root.readContents(of: file)
            } catch {
                throw .fileSystem(error, doing: "read the checkpoint '\(file)'")
            }
            records.append(try TaskRecord.decoding(bytes, path: file.description))
        }
        return records.sorted { $0.id < $1.id }
    }

    /// The file `name` in `folder`.
    ///
    /// - Throws: the core's code when `name` is not one plain name (names made here always are).
    static func path(_ name: String, in folder: ContainerPath) throws(TransferError) -> ContainerPath {
        do throws(SandboxError) {
            return try folder.appending(name)
        } catch {
            throw .fileSystem(error, doing: "name the file '\(name)' in '\(folder)'")
        }
    }

    var records: [TaskRecord] { state.withLock { $0.records.values.sorted { $0.id < $1.id } } }

    func record(_ id: Int) -> TaskRecord? { state.withLock { $0.records[id] } }

    /// Adds a record with a new identifier, made by `make`, and removes the records among `replaced`
    /// that are not unfinished. With records to replace, the new one is written at once, before
    /// they are removed (a kill in between leaves both, and the next session supersedes the older
    /// by the same rule); otherwise at its first ``update(_:durable:_:)``.
    func add(replacing replaced: Set<Int> = [], _ make: (Int) -> TaskRecord) throws(TransferError) -> TaskRecord {
        let added = try withState { state throws(TransferError) in
            let added = make(state.nextIdentifier)
            state.nextIdentifier += 1
            if !replaced.isEmpty { try write(added, durable: false) }
            state.records[added.id] = added
            return added
        }
        for id in replaced where record(id)?.isUnfinished == false { try remove(id) }
        return added
    }

    /// Changes the record `id` (if present) and writes it; `durable` also fsyncs it.
    @discardableResult
    func update(
        _ id: Int, durable: Bool = false, _ change: (inout TaskRecord) -> Void
    ) throws(TransferError) -> TaskRecord? {
        try withState { state throws(TransferError) in
            guard var record = state.records[id] else { return nil }
            change(&record)
            record.updatedAt = Date()
            try write(record, durable: durable)
            state.records[id] = record
            return record
        }
    }

    /// Removes the record `id`.
    func remove(_ id: Int) throws(TransferError) {
        try withState { state throws(TransferError) in
            let file = try Self.path("\(id).json", in: folder)
            do throws(SandboxError) {
                _ = try root.removeItem(at: file)
            } catch  where error.code == .notFound {
            } catch {
                throw .fileSystem(error, doing: "remove the checkpoint '\(file)'")
            }
            state.records[id] = nil
        }
    }

    private func write(_ record: TaskRecord, durable: Bool) throws(TransferError) {
        try write(try record.encoded(), to: try Self.path("\(record.id).json", in: folder), durable: durable)
    }

    private func write(_ bytes: [UInt8], to file: ContainerPath, durable: Bool) throws(TransferError) {
        do throws(SandboxError) {
            try root.writeContents(bytes, to: file, options: durable ? [.atomic, .durable] : .atomic)
        } catch {
            throw .fileSystem(error, doing: "checkpoint the download session to '\(file)'")
        }
    }

    /// Runs `body` under the lock, so that writes of the store happen in order.
    private func withState<R>(_ body: (inout State) throws(TransferError) -> R) throws(TransferError) -> R {
        let result: Result<R, TransferError> = state.withLock { state in
            do throws(TransferError) { return .success(try body(&state)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
