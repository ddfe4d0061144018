import Glibc
import NIOCore
import NIOPosix
import Synchronization

/// A connection to `sandboxd`: the handshake, requests answered by `requestID`, and the messages
/// the daemon sends unasked (events, "all events delivered") on ``messages``.
///
/// NIO owns the socket; the connection's reading runs in a task of its own, so nothing blocks a
/// thread of the cooperative pool.
package final class DaemonConnection: Sendable {
    private struct State {
        var nextRequest = 1
        var pending: [Int: CheckedContinuation<DaemonMessage, any Error>] = [:]
        var closed: SandboxError?
    }

    /// The state the reading task and the callers share.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    /// Events and "all events delivered", in the order the daemon sent them; ends when the
    /// connection closes.
    package let messages: AsyncStream<DaemonMessage>
    /// The daemon's process identifier, from its welcome.
    package let daemonPID: Int32
    private let channel: any Channel
    private let writer: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let shared: Shared
    private let messageSink: AsyncStream<DaemonMessage>.Continuation

    private init(
        channel: any Channel, writer: NIOAsyncChannelOutboundWriter<ByteBuffer>, daemonPID: Int32,
        messages: AsyncStream<DaemonMessage>, messageSink: AsyncStream<DaemonMessage>.Continuation,
        shared: Shared
    ) {
        self.channel = channel
        self.writer = writer
        self.daemonPID = daemonPID
        self.messages = messages
        self.messageSink = messageSink
        self.shared = shared
    }

    /// Connects to the socket at `path` and shakes hands.
    ///
    /// - Throws: `daemon-unavailable` when nothing listens there; the daemon's
    ///   refusal (e.g. ``SandboxCore/SandboxError/Code/protocolVersion``, `permission-denied`) otherwise.
    package static func connect(
        path: String, hello: ClientMessage.Hello
    ) async throws(SandboxError) -> DaemonConnection {
        let initializer = wrap(sendingFirst: try helloFrame(hello))
        let asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path, channelInitializer: initializer)
        } catch {
            throw SandboxError(
                .daemonUnavailable, "Could not connect to sandboxd at '\(path)': \(error).", path: path,
                underlying: .wrapping(error))
        }
        return try await handshake(asyncChannel, path: path)
    }

    /// Takes over `descriptor`, a socket already connected to the daemon (and possibly bound to an
    /// app by the launcher), and shakes hands on it. The connection owns the descriptor from here,
    /// whether this succeeds or not.
    ///
    /// - Throws: `daemon-unavailable` when the socket cannot be used; the
    ///   daemon's refusal of the hello otherwise.
    package static func connect(
        descriptor: CInt, hello: ClientMessage.Hello
    ) async throws(SandboxError) -> DaemonConnection {
        let initializer: @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>>
        do throws(SandboxError) {
            initializer = wrap(sendingFirst: try helloFrame(hello))
        } catch {
            Glibc.close(descriptor)
            throw error
        }
        let asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .withConnectedSocket(descriptor, channelInitializer: initializer)
        } catch {
            Glibc.close(descriptor)
            throw SandboxError(
                .daemonUnavailable, "The connection to sandboxd (descriptor \(descriptor)) cannot be used: \(error).",
                underlying: .wrapping(error))
        }
        return try await handshake(asyncChannel, path: "descriptor \(descriptor)")
    }

    /// The hello, framed: encoded before the connect, so that the connect can send it.
    private static func helloFrame(_ hello: ClientMessage.Hello) throws(SandboxError) -> ByteBuffer {
        ByteBuffer(bytes: try WireCoding.encode(ClientMessage.hello(hello)))
    }

    /// The channel's initializer: a ``HelloWriter`` sending `hello` as the channel becomes active
    /// (from its event loop, so no thread of the cooperative pool is needed before the daemon's
    /// hello deadline), then the async wrapper. Half-closure: finishing the writer (``finish()``)
    /// sends what is pending, then EOF.
    private static func wrap(
        sendingFirst hello: ByteBuffer
    ) -> @Sendable (any Channel) -> EventLoopFuture<NIOAsyncChannel<ByteBuffer, ByteBuffer>> {
        { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(HelloWriter(frame: hello))
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                    wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            }
        }
    }

    private static func handshake(
        _ asyncChannel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, path: String
    ) async throws(SandboxError) -> DaemonConnection {
        let (messages, sink) = AsyncStream.makeStream(of: DaemonMessage.self)
        let shared = Shared()
        let (started, startedSink) = AsyncStream.makeStream(
            of: Result<(NIOAsyncChannelOutboundWriter<ByteBuffer>, DaemonMessage), SandboxError>.self)
        Task {
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    try await run(
                        inbound: inbound, outbound: outbound, started: startedSink, messages: sink, shared: shared)
                }
            } catch {
                startedSink.yield(.failure(Self.closedError(error)))
            }
            startedSink.finish()
            let pending = shared.state.withLock { state in
                if state.closed == nil {
                    state.closed = SandboxError(.daemonUnavailable, "The connection to sandboxd closed.")
                }
                defer { state.pending = [:] }
                return state.pending.values
            }
            let closed = shared.state.withLock { $0.closed }
            for continuation in pending {
                continuation.resume(throwing: closed ?? SandboxError(.daemonUnavailable, "closed"))
            }
            sink.finish()
        }
        var first: Result<(NIOAsyncChannelOutboundWriter<ByteBuffer>, DaemonMessage), SandboxError>?
        for await result in started {
            first = result
            break
        }
        guard let first else {
            throw SandboxError(.daemonUnavailable, "sandboxd closed the connection at '\(path)' during the handshake.")
        }
        let (writer, welcome) = try first.get()
        return DaemonConnection(
            channel: asyncChannel.channel, writer: writer, daemonPID: welcome.daemonPID ?? 0, messages: messages,
            messageSink: sink, shared: shared)
    }

    private static func closedError(_ error: any Error) -> SandboxError {
        if let error = error as? SandboxError { return error }
        return SandboxError(
            .daemonUnavailable, "The connection to sandboxd failed: \(error).", underlying: .wrapping(error))
    }

    /// Waits for the welcome to the hello (``HelloWriter`` sent it), then reads until the connection
    /// ends.
    private static func run(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        started: AsyncStream<Result<(NIOAsyncChannelOutboundWriter<ByteBuffer>, DaemonMessage), SandboxError>>
            .Continuation,
        messages: AsyncStream<DaemonMessage>.Continuation, shared: Shared
    ) async throws {
        var decoder = FrameDecoder()
        var welcomed = false
        for try await buffer in inbound {
            decoder.append(buffer.readableBytesView)
            while let body = try decoder.nextFrame() {
                let message = try WireCoding.decode(DaemonMessage.self, from: body)
                if !welcomed {
                    guard message.type == .welcome else {
                        let error =
                            message.type == .failure
                            ? message.error
                            : SandboxError(
                                .protocolViolation, "sandboxd answered the hello with '\(message.type.rawValue)'.")
                        shared.state.withLock { $0.closed = error }
                        started.yield(.failure(error))
                        return
                    }
                    welcomed = true
                    started.yield(.success((outbound, message)))
                    continue
                }
                if let id = message.requestID,
                    let waiter = shared.state.withLock({ $0.pending.removeValue(forKey: id) })
                {
                    waiter.resume(returning: message)
                } else if message.type == .failure {
                    shared.state.withLock { $0.closed = message.error }  // refused: the daemon closes now
                } else {
                    messages.yield(message)
                }
            }
        }
        try decoder.finish()
    }

    /// Sends the request `make` builds with a fresh request identifier and waits for its answer.
    ///
    /// - Throws: the daemon's error when it answers `failure`;
    ///   `daemon-unavailable` when the connection closes first.
    package func request(_ make: (Int) -> ClientMessage) async throws(SandboxError) -> DaemonMessage {
        let id = shared.state.withLock { state in
            defer { state.nextRequest += 1 }
            return state.nextRequest
        }
        let frame = try WireCoding.encode(make(id))
        let answer: DaemonMessage
        do {
            answer = try await withCheckedThrowingContinuation { continuation in
                let closed = shared.state.withLock { state in
                    if state.closed == nil { state.pending[id] = continuation }
                    return state.closed
                }
                if let closed { return continuation.resume(throwing: closed) }
                Task {
                    do {
                        try await writer.write(ByteBuffer(bytes: frame))
                    } catch {
                        if let waiter = shared.state.withLock({ $0.pending.removeValue(forKey: id) }) {
                            waiter.resume(throwing: Self.closedError(error))
                        }
                    }
                }
            }
        } catch {
            throw Self.closedError(error)
        }
        if answer.type == .failure { throw answer.error }
        return answer
    }

    /// Sends a message that has no answer (an acknowledgement).
    ///
    /// - Throws: `daemon-unavailable` when the connection is closed.
    package func send(_ message: ClientMessage) async throws(SandboxError) {
        let frame = try WireCoding.encode(message)
        do {
            try await writer.write(ByteBuffer(bytes: frame))
        } catch {
            throw Self.closedError(error)
        }
    }

    /// Ends the connection gracefully: what was written (acknowledgements) reaches the daemon
    /// before it sees the end, then the daemon closes. Waits at most two seconds for that.
    package func finish() async {
        writer.finish()
        let channel = self.channel
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        defer { deadline.cancel() }
        do {
            try await channel.closeFuture.get()
        } catch {
            // Closing failed: the socket is gone either way.
        }
    }

    /// Closes the connection at once; pending requests fail and unsent writes are dropped.
    package func close() {
        channel.close(promise: nil)
    }

    deinit {
        channel.close(promise: nil)
        messageSink.finish()
    }
}
