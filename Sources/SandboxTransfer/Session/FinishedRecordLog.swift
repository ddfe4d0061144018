import Sandbox
import SandboxCore
import Synchronization

/// The records of completed tasks, one JSON line each, appended to one file of the checkpoint
/// folder (`finished.jsonl`). A completed record does not change again, so it needs no file of its
/// own: appending it costs one `pwrite`, where a file per record cost an inode — allocated on
/// every download and, on ext4, slow to allocate while many were freed recently.
///
/// A line wins over the task's record file and over earlier lines. One process owns the log (the
/// session's lock): it appends at the end it keeps, and when it opens the log it cuts off a last
/// line a kill left without its newline, which readers ignore meanwhile.
final class FinishedRecordLog: Sendable {
    /// The log's name in the checkpoint folder.
    static let name = "finished.jsonl"

    let root: ConfinedRoot
    let path: ContainerPath
    /// The open log (`nil` until the first append) and where the next line goes.
    private let state: Mutex<(file: OpenFile?, end: Int64)>

    /// The log in `folder`, for appending after `length` bytes: the whole lines ``read(root:folder:)``
    /// found (the file is cut there at the first append).
    init(root: ConfinedRoot, folder: ContainerPath, length: Int64) throws(SandboxError) {
        self.root = root
        path = try SessionStore.path(Self.name, in: folder)
        state = Mutex((nil, length))
    }

    deinit {
        try? state.withLock { $0.file }?.close()  // nothing to report from a deinit: each append was complete
    }

    /// Calls `body` with each record of the log of `folder` (a missing log has none), in the order
    /// they were appended, reading it a line at a time (``forEachLine(root:path:_:)``).
    ///
    /// - Returns: the length of the log's whole lines.
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a line that is not a valid record (naming the
    ///   log and the line), and the errors of ``forEachLine(root:path:_:)``.
    static func forEachRecord(
        root: ConfinedRoot, folder: ContainerPath, _ body: (TaskRecord) throws(SandboxError) -> Void
    ) throws(SandboxError) -> Int64 {
        let path = try SessionStore.path(name, in: folder)
        return try forEachLine(root: root, path: path) { line, number throws(SandboxError) in
            try body(try TaskRecord.decoding(line, path: "\(path) line \(number)"))
        }
    }

    /// Appends `record`; `durable` also flushes the log to the device.
    ///
    /// - Throws: the core's code when the log cannot be opened or written.
    func append(_ record: TaskRecord, durable: Bool) throws(SandboxError) {
        let line = try record.encoded() + [UInt8(ascii: "\n")]
        guard line.count <= Self.maximumLineLength else {
            throw SandboxError(
                .invalidArgument,
                "The record of task \(record.id) is \(line.count) bytes, more than the \(Self.maximumLineLength)-byte limit of '\(path)'; download it with shorter headers.",
                path: path.description)
        }
        let result: Result<Void, SandboxError> = state.withLock { state in
            do throws(SandboxError) {
                if state.file == nil { (state.file, state.end) = try open(cuttingAt: state.end) }
                guard let file = state.file else { return .success(()) }  // just opened
                try file.write(contentsOf: line, atOffset: state.end)
                state.end += Int64(line.count)
                if durable { try file.synchronize(.data) }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        do throws(SandboxError) { try result.get() } catch {
            throw .fileSystem(error, doing: "append to the checkpoint '\(path)'")
        }
    }

    /// Replaces the log, atomically, with its lines less those of record `id` (when it is removed),
    /// copied a line at a time from the file: the log holds records no longer in memory.
    ///
    /// - Throws: the errors of ``forEachRecord(root:folder:_:)`` for a line of the log, the core's
    ///   code when the log cannot be written.
    func rewrite(removing id: Int) throws(SandboxError) {
        let result: Result<Void, SandboxError> = state.withLock { state in
            do throws(SandboxError) {
                var kept = LineCopy(path: path)
                try root.writeFile(at: path, options: .atomic) { fd throws(SandboxError) in
                    _ = try Self.forEachLine(root: root, path: path) { line, number throws(SandboxError) in
                        let record = try TaskRecord.decoding(line, path: "\(path) line \(number)")
                        if record.id != id { try kept.write(line, to: fd) }
                    }
                    try kept.flush(to: fd)
                }
                try state.file?.close()  // it held the replaced file
                state = (nil, kept.length)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        do throws(SandboxError) { try result.get() } catch  where error.code == .corrupt {
            throw error  // a damaged line, named
        } catch {
            throw .fileSystem(error, doing: "rewrite the checkpoint '\(path)'")
        }
    }

    /// Lines written to a new log, gathered into writes of 64 KiB.
    private struct LineCopy {
        let path: ContainerPath
        var pending: [UInt8] = []
        /// The bytes written or pending.
        var length: Int64 = 0

        init(path: ContainerPath) { self.path = path }

        mutating func write(_ line: [UInt8], to fd: CInt) throws(SandboxError) {
            pending += line
            pending.append(UInt8(ascii: "\n"))
            length += Int64(line.count + 1)
            if pending.count >= 64 << 10 { try flush(to: fd) }
        }

        mutating func flush(to fd: CInt) throws(SandboxError) {
            try pending.withBytes { (bytes) throws(SandboxError) in
                try FullWrite.write(bytes, to: fd, path: path.description)
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Opens the log, creating it, and cuts off anything past `end` (a line a kill cut short);
    /// returns it and where the next line goes.
    private func open(cuttingAt end: Int64) throws(SandboxError) -> (OpenFile, Int64) {
        let file = try root.openFile(forReadingAndWritingAt: path, options: .modifyFile(createIfNecessary: true))
        do throws(SandboxError) {
            let size = try file.size()
            if size > end { try file.truncate(to: end) }
            return (file, min(size, end))
        } catch {
            try? file.close()  // the truncation's error is what matters
            throw error
        }
    }
}
