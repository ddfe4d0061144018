import Sandbox
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

    /// The records in the log of `folder` (a missing log has none), in the order they were
    /// appended, and the length of its whole lines.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a line that is not a valid record (naming the
    ///   log and the line), the core's code when the log cannot be read.
    static func read(root: ConfinedRoot, folder: ContainerPath) throws(SandboxError) -> ([TaskRecord], Int64) {
        let path = try SessionStore.path(name, in: folder)
        let bytes: [UInt8]
        do throws(SandboxError) {
            bytes = try root.readContents(of: path, maximumSize: 1 << 30)
        } catch  where error.code == .notFound {
            return ([], 0)
        } catch {
            throw .fileSystem(error, doing: "read the checkpoint '\(path)'")
        }
        var records: [TaskRecord] = []
        var start = 0
        var line = 1
        while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            records.append(try TaskRecord.decoding(Array(bytes[start..<newline]), path: "\(path) line \(line)"))
            start = newline + 1
            line += 1
        }
        return (records, Int64(start))  // past `start`: a line cut short by a kill, ignored
    }

    /// Appends `record`; `durable` also flushes the log to the device.
    ///
    /// - Throws: the core's code when the log cannot be opened or written.
    func append(_ record: TaskRecord, durable: Bool) throws(SandboxError) {
        let line = try record.encoded() + [UInt8(ascii: "\n")]
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

    /// Replaces the log with `records` (when one is removed), atomically.
    ///
    /// - Throws: the core's code when the log cannot be written.
    func rewrite(_ records: [TaskRecord]) throws(SandboxError) {
        var bytes: [UInt8] = []
        for record in records { bytes += try record.encoded() + [UInt8(ascii: "\n")] }
        let result: Result<Void, SandboxError> = state.withLock { state in
            do throws(SandboxError) {
                try root.writeContents(bytes, to: path)
                try state.file?.close()  // it held the replaced file
                state = (nil, Int64(bytes.count))
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        do throws(SandboxError) { try result.get() } catch {
            throw .fileSystem(error, doing: "rewrite the checkpoint '\(path)'")
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
