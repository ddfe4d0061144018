import Glibc
import Synchronization
import SystemPackage

/// A channel for many asynchronous reads and writes on one file: the `dispatch_io_t` of this library.
///
/// Created from a path in a container (``ConfinedRoot/openChannel(at:access:options:kind:chunkSize:engine:cleanup:)``)
/// or by taking ownership of an open descriptor (``init(takingOwnershipOf:name:kind:chunkSize:engine:cleanup:)``).
///
/// - A ``Kind/randomAccess`` channel reads and writes at the offsets given (`pread`/`pwritev`);
///   any number of operations run side by side on the ``IOEngine``.
/// - A ``Kind/stream`` channel ignores offsets and reads and writes at the current position
///   (`read`/`writev`), one operation at a time in the order they were issued; use it for pipes
///   and sockets.
///
/// Each operation is delivered in parts of at most `chunkSize` bytes, as an asynchronous sequence
/// (``read(fromOffset:length:)``, ``write(_:atOffset:)``), the last part marked done; an error ends
/// the sequence. Read parts are ``DataRegions`` in buffers from the engine's pool, which return to
/// it when the parts are dropped.
///
/// ``close(immediately:)`` refuses new operations and gives up the descriptor when the running
/// ones have ended, or cancels them first when `immediately`. The cleanup handler runs exactly once,
/// when the descriptor has been closed: after ``close(immediately:)``, or when the channel and all
/// its operations have gone away. A cleanup handler that captures the channel keeps it alive until
/// it is closed.
public final class IOChannel: Sendable {
    /// How a channel addresses its file.
    public enum Kind: Sendable, Hashable {
        /// At the current position, one operation at a time; offsets are ignored.
        case stream
        /// At explicit offsets, operations side by side.
        case randomAccess
    }

    /// The channel's kind.
    public let kind: Kind
    /// The file's name in messages: its container path, or the name given with a descriptor.
    public let path: String
    /// The most bytes in one part.
    public let chunkSize: Int
    let access: FileAccess
    let engine: IOEngine
    let descriptor: SharedDescriptor
    private let machine: Mutex<ChannelMachine<Operation>>
    private let operationIDs = Atomic<UInt64>(0)
    /// Set by ``close(immediately:)``: read without the machine's lock by every cached read.
    private let closing = Atomic<Bool>(false)

    /// An operation, as the channel sees it.
    struct Operation: Sendable {
        let start: @Sendable () -> Void
        let cancel: @Sendable (SandboxError) -> Void
    }

    init(
        descriptor owned: consuming OwnedDescriptor,
        path: String,
        access: FileAccess,
        kind: Kind,
        chunkSize: Int,
        engine: IOEngine,
        cleanup: @escaping @Sendable (SandboxError?) -> Void
    ) {
        self.kind = kind
        self.path = path
        self.access = access
        self.chunkSize = chunkSize
        self.engine = engine
        descriptor = SharedDescriptor(owned, path: path, onRelease: cleanup)
        machine = Mutex(ChannelMachine(isStream: kind == .stream))
    }

    /// Takes ownership of an open descriptor: the channel closes it when it gives it up (see
    /// ``close(immediately:)``), then calls `cleanup`.
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor; the caller must not use or close it afterwards.
    ///   - name: how messages name the file.
    ///   - kind: ``Kind/stream`` for pipes and sockets.
    ///   - chunkSize: the most bytes in one part; 1 MiB by default.
    ///   - engine: the ``IOEngine`` whose threads run the channel's reads and writes and whose
    ///     buffer pool they use; ``IOEngine/shared`` by default.
    ///   - cleanup: called once, after the descriptor is closed, with the `close(2)` error if any.
    /// - Throws: ``SandboxError/Code/invalidArgument`` for a descriptor that is not open (`EBADF`)
    ///   or a chunk size below 1; the descriptor is closed then, and `cleanup` is not called.
    public convenience init(
        takingOwnershipOf descriptor: FileDescriptor,
        name: String,
        kind: Kind,
        chunkSize: Int = IOEngine.defaultChunkSize,
        engine: IOEngine = .shared,
        cleanup: @escaping @Sendable (SandboxError?) -> Void = { _ in }
    ) throws(SandboxError) {
        let owned = OwnedDescriptor(taking: descriptor.rawValue)
        let flags = fcntl(owned.rawValue, F_GETFL)
        guard flags >= 0 else {
            _ = owned.release()  // not a descriptor: nothing to close
            throw .rule(
                .invalidArgument,
                "Descriptor \(descriptor.rawValue) ('\(name)') is not open; a channel needs an open descriptor.",
                path: name)
        }
        guard chunkSize > 0 else {
            throw .rule(
                .invalidArgument, "A chunk size of \(chunkSize) bytes cannot make progress; use 1 or more.", path: name)
        }
        let access: FileAccess =
            switch flags & O_ACCMODE {
            case O_WRONLY: .writing
            case O_RDWR: .readingAndWriting
            default: .reading
            }
        self.init(
            descriptor: owned, path: name, access: access, kind: kind, chunkSize: chunkSize, engine: engine,
            cleanup: cleanup)
    }

    /// Closes the channel.
    ///
    /// New operations are refused (their sequences throw ``SandboxError/Code/closed``). Without
    /// `immediately`, running and queued operations finish first; with it, they end with ``SandboxError/Code/interrupted`` after their current system
    /// call. Then the descriptor is closed and the cleanup handler runs. Closing again does nothing.
    public func close(immediately: Bool = false) {
        closing.store(true, ordering: .releasing)
        let action = machine.withLock { $0.close(immediately: immediately) }
        perform(action)
    }

    /// Whether ``close(immediately:)`` has been called.
    public var isClosed: Bool { closing.load(ordering: .acquiring) }

    /// Waits until the channel has given up its descriptor and the cleanup handler has returned.
    public func waitUntilReleased() async {
        await descriptor.waitUntilReleased()
    }

    /// A new operation's identifier.
    func makeOperationID() -> UInt64 {
        operationIDs.add(1, ordering: .relaxed).newValue
    }

    /// Registers an operation with the channel, which starts it now or when its turn comes (or
    /// refuses it, when closed).
    func issue(_ id: UInt64, start: @escaping @Sendable () -> Void, cancel: @escaping @Sendable (SandboxError) -> Void)
    {
        let action = machine.withLock { $0.add(id, Operation(start: start, cancel: cancel)) }
        perform(action)
    }

    /// An operation ended.
    func operationEnded(_ id: UInt64) {
        perform(machine.withLock { $0.ended(id) })
    }

    private func perform(_ action: ChannelMachine<Operation>.Action) {
        action.refuse?.cancel(.closed(path))
        for operation in action.cancel {
            operation.cancel(.cancelled(path, "the channel was closed immediately"))
        }
        for operation in action.start { operation.start() }
        if action.releaseDescriptor {
            _ = try? descriptor.close()  // a close(2) error goes to the cleanup handler
        }
    }
}

extension ConfinedRoot {
    /// Opens the file at `path` as an ``IOChannel``.
    ///
    /// - Parameters:
    ///   - path: the file to open, relative to the root.
    ///   - access: reading, writing or both.
    ///   - options: for writing: whether to create, empty or refuse an existing file.
    ///   - kind: ``IOChannel/Kind/randomAccess`` by default.
    ///   - chunkSize: the most bytes in one part; 1 MiB by default.
    ///   - engine: the ``IOEngine`` whose threads run the channel's reads and writes and whose
    ///     buffer pool they use; ``IOEngine/shared`` by default.
    ///   - cleanup: called once, after the channel has given up and closed the descriptor.
    /// - Throws: the errors of ``openFile(forReadingAt:engine:)`` and
    ///   ``openFile(forWritingAt:options:engine:)``: ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notFound``, ``SandboxError/Code/escapesContainer``,
    ///   ``SandboxError/Code/tooManyOpenFiles``, …; ``SandboxError/Code/invalidArgument`` for a chunk
    ///   size below 1. `cleanup` is not called then.
    public func openChannel(
        at path: ContainerPath,
        access: FileAccess = .reading,
        options: FileOpenOptions = .modifyFile(createIfNecessary: true),
        kind: IOChannel.Kind = .randomAccess,
        chunkSize: Int = IOEngine.defaultChunkSize,
        engine: IOEngine = .shared,
        cleanup: @escaping @Sendable (SandboxError?) -> Void = { _ in }
    ) throws(SandboxError) -> IOChannel {
        guard chunkSize > 0 else {
            throw .rule(
                .invalidArgument, "A chunk size of \(chunkSize) bytes cannot make progress; use 1 or more.",
                path: path.description)
        }
        let file =
            access == .reading
            ? try openRegularFile(path)
            : try openRegularFile(path, flags: access.openFlags | options.openFlags, mode: options.permissions)
        return IOChannel(
            descriptor: file, path: path.description, access: access, kind: kind,
            chunkSize: chunkSize, engine: engine, cleanup: cleanup)
    }
}
