import CSandboxShims
import Foundation
import Glibc
import Logging
import NIOCore
import NIOPosix
import Sandbox
import SandboxTransfer
import ServiceLifecycle

/// `sandboxd`'s server: the Unix socket, one task per connection, the idle exit and the graceful
/// stop. Run it in a `ServiceGroup` that turns SIGTERM into a graceful shutdown.
public struct DaemonServer: Service {
    let options: DaemonOptions
    let logger: Logger
    let home: SandboxHome

    /// A server for `home` with `options`.
    public init(home: SandboxHome, options: DaemonOptions, logger: Logger) {
        self.home = home
        self.options = options
        self.logger = logger
    }

    /// Listens until a graceful shutdown or the idle limit, then pauses every transfer (partial
    /// files and checkpoints kept) and returns.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the socket or the queue cannot be set up.
    public func run() async throws {
        // A flood of connections can exhaust the descriptors: libdispatch must not need one then,
        // and the soft limit (usually 1,024) is raised to the hard one: 128 connections with 8
        // transfers each would pass it, and at the limit libdispatch kills the process
        // (ProcessDescriptors).
        await DispatchClocks.prime()
        ProcessDescriptors.raiseSoftLimitToHard()
        let paths = options.paths
        try paths.prepare()
        let queue = try EventQueue(path: paths.queue, logger: logger)
        let daemon = Daemon(home: home, options: options, queue: queue, logger: logger)
        let gate = ConnectionGate(limits: options.limits, logger: logger)
        let window = RequestWindow(size: options.limits.requestWindow) { await queue.writes.flush() }
        // Only one daemon runs per runtime folder (the caller holds the pid lock), so a socket file
        // left by a killed one is stale and replaced. NIO backs off accepting for a second on EMFILE
        // (AcceptBackoffHandler) instead of spinning. A connection reads at most one buffer of
        // 8 KiB ahead of its handler, and NIO holds at most 16 KiB of writes (and the frame being
        // written) for a client that does not read: what it holds beyond is counted by its slot.
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(
                .recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 8 << 10)
            )
            .childChannelOption(
                .writeBufferWaterMark, value: ChannelOptions.Types.WriteBufferWaterMark(low: 8 << 10, high: 16 << 10)
            )
            .bind(unixDomainSocketPath: paths.socket, cleanupExistingSocketFile: true) { channel in
                PeerCredentials.of(channel).flatMapThrowing { credentials in
                    // A refused connection is closed as it is: an async channel must be run
                    // (`executeThenClose`), or its writer traps when it goes.
                    guard let slot = gate.enter(credentials, close: { channel.close(promise: nil) }) else {
                        return Accepted.refused(channel)
                    }
                    let connection = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 1)))
                    return Accepted.admitted(connection, credentials, slot)
                }
            }
        chmod(paths.socket, 0o600)
        logger.info("listening on \(paths.socket), pid \(getpid())")
        await daemon.resumeAll()
        let idleWatch = Task {
            var lastExpiry = ContinuousClock.now - .seconds(3600)
            var heap = HeapTrimPolicy()
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))  // cancelled: the loop ends
                if heap.observe(openConnections: gate.openCount) { _ = csb_trim_heap() }
                if ContinuousClock.now - lastExpiry > .seconds(600) {
                    lastExpiry = .now
                    await daemon.expireOldEvents()
                }
                if await daemon.isIdle() {
                    logger.info("idle for \(options.idleExit): exiting")
                    server.channel.close(promise: nil)
                    return
                }
            }
        }
        defer { idleWatch.cancel() }
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await accepted in connections {
                        guard case .admitted(let connection, let credentials, let slot) = accepted else {
                            if case .refused(let channel) = accepted { channel.close(promise: nil) }  // logged
                            continue
                        }
                        group.addTask {
                            defer { slot.leave() }
                            await ConnectionHandler(daemon: daemon, logger: logger, window: window)
                                .serve(connection, credentials: credentials, slot: slot)
                        }
                    }
                }
                await daemon.shutdown()
            }
        } onGracefulShutdown: {
            logger.info("stopping (graceful shutdown)")
            server.channel.close(promise: nil)
        }
        unlink(paths.socket)
    }
}

/// A connection as the server's initializer leaves it: admitted within the limits, or refused
/// (closed at once, its reason logged by the ``ConnectionGate``).
private enum Accepted: Sendable {
    case admitted(NIOAsyncChannel<ByteBuffer, ByteBuffer>, PeerCredentials, ConnectionSlot)
    case refused(any Channel)
}
