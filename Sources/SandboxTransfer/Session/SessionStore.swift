import Foundation
import Sandbox
import Synchronization

/// The session's durable checkpoint: every task's record in one JSON file, replaced atomically and
/// fsync'd (`writeContents(options: [.atomic, .durable])`) on every change of phase, validator or
/// length — so a session re-created after SIGKILL finds each task as it last was.
final class SessionStore: Sendable {
    let root: ConfinedRoot
    let file: ContainerPath
    private let contents: Mutex<StoreContents>

    /// Loads the store at `file`; a missing file is an empty store.
    ///
    /// - Throws: ``TransferError/Code/file`` when the file cannot be read or is not in this format.
    init(root: ConfinedRoot, file: ContainerPath) throws(TransferError) {
        self.root = root
        self.file = file
        self.contents = Mutex(try Self.load(root: root, file: file))
    }

    static func load(root: ConfinedRoot, file: ContainerPath) throws(TransferError) -> StoreContents {
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try root.readContents(of: file)
        } catch where error.code == .notFound {
            return StoreContents()
        } catch {
            throw .file(error, doing: "read the download session's checkpoint '\(file)'")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            let contents = try decoder.decode(StoreContents.self, from: Data(bytes))
            guard contents.version <= StoreContents.currentVersion else {
                throw TransferError(.file, "The checkpoint '\(file)' was written by a newer version (\(contents.version)); update sandbox.", path: file.description)
            }
            return contents
        } catch let error as TransferError {
            throw error
        } catch {
            throw TransferError(.file, "The checkpoint '\(file)' is damaged; remove it to start the session afresh.", path: file.description, cause: error)
        }
    }

    var records: [TaskRecord] { contents.withLock { $0.tasks } }

    func record(_ id: Int) -> TaskRecord? { contents.withLock { $0.tasks.first { $0.id == id } } }

    /// Adds a record with a new identifier, made by `make`, removes the records that are not
    /// unfinished among `replaced` (in the same write: a kill never leaves both), and writes the store.
    func add(replacing replaced: Set<Int> = [], _ make: (Int) -> TaskRecord) throws(TransferError) -> TaskRecord {
        try mutate { contents in
            contents.tasks.removeAll { replaced.contains($0.id) && !$0.isUnfinished }
            let record = make(contents.nextTaskIdentifier)
            contents.nextTaskIdentifier += 1
            contents.tasks.append(record)
            return record
        }
    }

    /// Changes the record `id` (if present) and writes the store.
    @discardableResult
    func update(_ id: Int, _ change: (inout TaskRecord) -> Void) throws(TransferError) -> TaskRecord? {
        try mutate { contents in
            guard let index = contents.tasks.firstIndex(where: { $0.id == id }) else { return nil }
            change(&contents.tasks[index])
            contents.tasks[index].updatedAt = Date()
            return contents.tasks[index]
        }
    }

    /// Removes the record `id` and writes the store.
    func remove(_ id: Int) throws(TransferError) {
        try mutate { contents in contents.tasks.removeAll { $0.id == id } }
    }

    /// Applies `change` and writes the whole store durably, under the lock so that writes are in
    /// order. A failed write leaves memory changed and the previous file in place.
    private func mutate<R>(_ change: (inout StoreContents) -> R) throws(TransferError) -> R {
        let result: Result<R, TransferError> = contents.withLock { contents in
            let value = change(&contents)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            do {
                let data = try encoder.encode(contents)
                try root.writeContents(Array(data), to: file, options: [.atomic, .durable])
                return .success(value)
            } catch let error as SandboxError {
                return .failure(.file(error, doing: "checkpoint the download session to '\(file)'"))
            } catch {
                return .failure(TransferError(.file, "Could not encode the download session's checkpoint.", path: file.description, cause: error))
            }
        }
        return try result.get()
    }
}
