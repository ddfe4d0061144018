import Synchronization

/// Writes a file from a sequence of appends, with back-pressure, and publishes it atomically when
/// finished (the role of `NSOutputStream`).
///
/// Appends return as soon as the data is queued, while fewer than 4 MiB are waiting to be written;
/// past that, an append waits for the engine to catch up, so a fast producer cannot fill memory.
/// Data is written in order with `pwritev` on the ``IOEngine``, in batches of up to 8 MiB, and
/// queued ``DataRegions`` are written as they are, without copying.
///
/// With ``WriteOptions/atomic`` (the default) nothing appears at the path until ``finish()``, which
/// puts the complete file in place in one step, with the owner, mode and user attributes of the
/// file it replaces; a writer that fails, is discarded, or goes away unfinished publishes nothing.
/// Without it the file is written in place. ``WriteOptions/durable`` adds `fsync` of the file and
/// its directory at ``finish()``, atomic or not.
public final class FileWriter: Sendable {
    /// Bytes queued before appends wait: 4 MiB.
    public static let highWatermark = 4 << 20

    typealias Waiter = UnsafeContinuation<Result<Void, SandboxError>, Never>

    /// The container path being written, for messages.
    public let path: String
    private let staged: StagedFile
    private let engine: IOEngine
    private let machine: Mutex<WriterMachine<Waiter>>

    /// - Parameter queueLimit: the bytes queued before appends wait (``highWatermark`` by
    ///   default); appends resume below half of it, and one write takes at most twice it.
    init(staged: StagedFile, engine: IOEngine, queueLimit: Int = FileWriter.highWatermark) {
        self.staged = staged
        self.engine = engine
        path = staged.path.description
        machine = Mutex(
            WriterMachine(highWatermark: queueLimit, lowWatermark: queueLimit / 2, batchLimit: 2 * queueLimit))
    }

    /// Appends `data` without copying it.
    ///
    /// - Throws: the error of an earlier write that failed (``SandboxError/Code/noSpace``,
    ///   ``SandboxError/Code/io``, …: the writer is then failed and publishes nothing), or
    ///   ``SandboxError/Code/closed`` after ``finish()`` or ``discard()``.
    public func write(_ data: DataRegions) async throws(SandboxError) {
        let result = await withUnsafeContinuation { (waiter: Waiter) in
            perform(machine.withLock { $0.append(data, waiter, closedError: .closed(path)) })
        }
        try result.get()
    }

    /// Appends a copy of `bytes`.
    ///
    /// - Throws: as ``write(_:)``.
    public func write(contentsOf bytes: some Sequence<UInt8>) async throws(SandboxError) {
        try await write(DataRegions(bytes))
    }

    /// The number of bytes written to the file so far (appended bytes still queued are not counted).
    public var bytesWritten: Int64 { machine.withLock { $0.written } }

    /// Waits for every queued append to be written, then publishes the file at its path (and makes
    /// it durable, with ``WriteOptions/durable``).
    ///
    /// - Returns: the file's size.
    /// - Throws: the error of a failed write, ``SandboxError/Code/alreadyExists`` with
    ///   ``WriteOptions/withoutOverwriting``, ``SandboxError/Code/noSpace`` or
    ///   ``SandboxError/Code/io`` from `fsync`; ``SandboxError/Code/closed`` when already
    ///   finished or discarded. On failure nothing is published.
    @discardableResult
    public func finish() async throws(SandboxError) -> Int64 {
        try await finish(modificationTime: nil)
    }

    /// ``finish()``, the file published with `modificationTime` (since the epoch, exact to the
    /// nanosecond; a negative one is the epoch) as its modification time when given: set on the
    /// file before it is at its path, for the sharing server's uploads that keep the uploader's time.
    ///
    /// - Throws: as ``finish()``.
    @discardableResult
    package func finish(modificationTime: Duration?) async throws(SandboxError) -> Int64 {
        _ = try await finishDescribed(modificationTime: modificationTime)
        return bytesWritten
    }

    /// ``finish(modificationTime:)``, returning the `statx` values of the file published, read
    /// from its own descriptor once it is at its path: its identity (inode, size, modification
    /// time), for a record that must belong to this file and not to another one put at the path
    /// since (the sharing server's content checksums).
    ///
    /// - Throws: as ``finish()``.
    package func finishDescribed(modificationTime: Duration?) async throws(SandboxError) -> FileAttributes {
        let drained = await withUnsafeContinuation { (waiter: Waiter) in
            perform(machine.withLock { $0.drain(waiter, closedError: .closed(path)) })
        }
        do throws(SandboxError) {
            try drained.get()
        } catch {
            discard()
            throw error
        }
        perform(machine.withLock { $0.close(.closed(path)) })
        let staged = self.staged
        return try await engine.perform { () throws(SandboxError) -> FileAttributes in
            try staged.commit(modificationTime: modificationTime)
        }
    }

    /// Abandons the file: queued data is dropped, tasks waiting in ``write(_:)`` get
    /// ``SandboxError/Code/interrupted``, and nothing is published.
    public func discard() {
        perform(machine.withLock { $0.close(.cancelled(path, "the writer was discarded")) })
        staged.discard()
    }

    private func perform(_ action: WriterMachine<Waiter>.Action) {
        for (waiter, result) in action.resume { waiter.resume(returning: result) }
        if action.startJob {
            engine.schedule(
                { self.runJob() },
                reject: { error in
                    self.perform(self.machine.withLock { $0.wrote(0, .failure(error)) })
                })
        }
    }

    /// Writes batches until the queue is empty.
    private func runJob() {
        while true {
            let (batch, action) = machine.withLock { $0.takeBatch() }
            perform(action)
            guard let batch else { return }
            let descriptor = staged.descriptor
            let result = Result { () throws(SandboxError) in
                try descriptor.use { fd throws(SandboxError) in
                    try VectoredIO.writeAll(batch.data, to: fd, atOffset: batch.offset, path: path)
                }
            }
            let failed = machine.withLock { machine -> (WriterMachine<Waiter>.Action, Bool) in
                let action = machine.wrote(batch.data.count, result)
                return (action, machine.failure != nil)
            }
            perform(failed.0)
            if failed.1 { return }
        }
    }
}

extension ConfinedRoot {
    /// Starts writing the file at `path` (see ``FileWriter``). Call ``FileWriter/finish()`` to
    /// publish it; prefer ``withWriter(at:options:engine:_:)``, which finishes or discards for you.
    ///
    /// - Parameters:
    ///   - path: the file to create or replace, relative to the root.
    ///   - options: ``WriteOptions/atomic`` by default; add ``WriteOptions/durable`` to survive a
    ///     power cut once ``FileWriter/finish()`` returns, ``WriteOptions/withoutOverwriting`` to
    ///     refuse to replace a file.
    ///   - engine: whose threads run the writes; ``IOEngine/shared`` by default.
    /// - Throws: ``SandboxError/Code/isADirectory`` when a directory is at `path`,
    ///   ``SandboxError/Code/notFound`` for a missing parent directory,
    ///   ``SandboxError/Code/tooManyOpenFiles``, and resolution errors such as
    ///   ``SandboxError/Code/escapesContainer``.
    public func openWriter(
        at path: ContainerPath, options: WriteOptions = .atomic, engine: IOEngine = .shared
    ) throws(SandboxError) -> FileWriter {
        FileWriter(staged: try StagedFile(root: self, path: path, options: options), engine: engine)
    }

    /// ``openWriter(at:options:engine:)`` with at most `queueLimit` bytes queued before appends
    /// wait: for a server running many writers at once (the sharing server's uploads).
    package func openWriter(
        at path: ContainerPath, options: WriteOptions, queueLimit: Int, engine: IOEngine = .shared
    ) throws(SandboxError) -> FileWriter {
        FileWriter(
            staged: try StagedFile(root: self, path: path, options: options), engine: engine,
            queueLimit: max(queueLimit, 2))
    }

    /// Writes the file at `path` with the appends `body` makes, then publishes it; if `body` throws,
    /// nothing is published and the error propagates.
    ///
    /// - Returns: the file's size.
    /// - Throws: the errors of ``openWriter(at:options:engine:)``, of ``FileWriter/finish()``, and
    ///   what `body` throws.
    @discardableResult
    public func withWriter(
        at path: ContainerPath,
        options: WriteOptions = .atomic,
        engine: IOEngine = .shared,
        _ body: (FileWriter) async throws -> Void
    ) async throws -> Int64 {
        let writer = try openWriter(at: path, options: options, engine: engine)
        do {
            try await body(writer)
        } catch {
            writer.discard()
            throw error
        }
        return try await writer.finish()
    }

    /// Writes the chunks of `chunks` as the contents of the file at `path`, streaming: at most a
    /// few MiB are held in memory, whatever the size.
    ///
    /// - Returns: the file's size.
    /// - Throws: the errors of ``withWriter(at:options:engine:_:)`` and what `chunks` throws
    ///   (nothing is published then).
    @discardableResult
    public func writeContents<Chunks: AsyncSequence>(
        _ chunks: Chunks,
        to path: ContainerPath,
        options: WriteOptions = .atomic,
        engine: IOEngine = .shared
    ) async throws -> Int64 where Chunks.Element == DataRegions {
        try await withWriter(at: path, options: options, engine: engine) { writer in
            for try await chunk in chunks { try await writer.write(chunk) }
        }
    }
}
