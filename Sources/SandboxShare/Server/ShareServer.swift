import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Sandbox
import ServiceLifecycle
import UnixSignals

/// Serves one container's Documents folder over WebDAV (classes 1 and 2) on Hummingbird.
///
/// ```swift
/// let server = try ShareServer(container: container, configuration: configuration, logger: logger)
/// try await server.run { port in print("listening on \(port)") }
/// ```
///
/// Only Documents is reachable, through a confined root that refuses every symlink; the Inbox
/// and names starting with `.` are hidden. Every request needs the configured credentials.
/// ``run(onListening:)`` stops gracefully on SIGINT and SIGTERM: the listener closes, requests in
/// flight finish (an upload cut short publishes nothing), then it returns.
public struct ShareServer: Sendable {
    /// The shared folder.
    public let documents: ConfinedRoot
    /// How it is served.
    public let configuration: ShareConfiguration
    private let logger: Logger

    /// A server for `container`'s Documents folder.
    ///
    /// - Throws: ``ShareError`` with the core's code when Documents cannot be opened (missing,
    ///   not a directory).
    public init(container: Container, configuration: ShareConfiguration, logger: Logger) throws(ShareError) {
        guard let documentsPath = ContainerDirectory.documents.path else {
            throw ShareError(.internalError, "The container has no Documents folder.")
        }
        do throws(SandboxError) {
            documents = try container.root.openSubroot(at: documentsPath, refusingSymlinks: true)
        } catch {
            throw .fileSystem(error, path: "/", doing: "open the Documents folder of \(container.identifier)")
        }
        self.configuration = configuration
        self.logger = logger
    }

    /// A server for the folder `documents` (which should refuse symlinks:
    /// ``/SandboxCore/ConfinedRoot/openSubroot(at:refusingSymlinks:)``).
    public init(documents: ConfinedRoot, configuration: ShareConfiguration, logger: Logger) {
        self.documents = documents
        self.configuration = configuration
        self.logger = logger
    }

    /// Listens and serves until SIGINT or SIGTERM, or until the task is cancelled.
    ///
    /// Raises the process's soft limit on open descriptors to its hard limit first, and holds at
    /// most the configuration's ``ShareConfiguration/connectionLimits`` (fitted to that limit):
    /// connections that have not logged in are closed after a few seconds without a request, or
    /// to make room for new ones; a shortage of descriptors pauses accepting briefly rather than
    /// retrying at once.
    ///
    /// - Parameter onListening: called once with the port the server listens on (the one picked
    ///   when the configuration's port is 0).
    /// - Throws: the listener's error when the address cannot be bound (in use, not local).
    public func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let configuration = self.configuration
        let logger = self.logger
        let documents = self.documents
        let ready = ResponderSlot()
        let limits = configuration.connectionLimits.fitted(
            toDescriptorLimit: DescriptorLimit.raiseToHard() ?? Self.usualDescriptorLimit)
        let registry = ConnectionRegistry(limits: limits)
        let connections = EventLoopHTTP1Channel(
            configuration: .init(
                additionalChannelHandlers: [ExpectContinueHandler(credentials: configuration.credentials)],
                idleTimeout: TimeAmount(configuration.idleTimeout)),
            responder: ReadyResponder(slot: ready), registry: registry, credentials: configuration.credentials)
        let server = connections.server(
            configuration: ServerConfiguration(
                address: .hostname(configuration.host, port: configuration.port), backlog: Self.backlog),
            onServerRunning: { channel in
                await Self.pauseOnDescriptorShortage(listener: channel, registry: registry, logger: logger)
                let port = channel.localAddress?.port ?? configuration.port
                let authorities = configuration.allowedAuthorities(
                    port: port, localAddresses: Self.interfaceAddresses(), hostName: Self.hostName())
                let methods = DAVMethods(
                    documents: documents, locks: LockManager(), properties: DeadPropertyStore(root: documents),
                    readOnly: configuration.readOnly, maximumUploadSize: configuration.maximumUploadSize,
                    allowedAuthorities: authorities, logger: logger)
                ready.set(ShareResponder(methods: methods, credentials: configuration.credentials, logger: logger))
                await onListening(port)
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// How many connections may wait to be accepted: Linux's usual `somaxconn` (Hummingbird's
    /// 256 filled up under a burst of connections, and the owner's connection, dropped, was
    /// retried only after a second).
    private static let backlog = 4096

    /// The descriptor limit assumed when it cannot be read: Linux's usual soft limit.
    private static let usualDescriptorLimit = 1024

    /// Puts a ``DescriptorShortageHandler`` first in the listener's pipeline.
    private static func pauseOnDescriptorShortage(
        listener: any Channel, registry: ConnectionRegistry, logger: Logger
    ) async {
        do {
            try await listener.eventLoop.submit {
                try listener.pipeline.syncOperations.addHandler(
                    DescriptorShortageHandler(registry: registry), position: .first)
            }.get()
        } catch {
            logger.warning("The listener does not pause when descriptors run out: \(error)")
        }
    }

    /// The addresses of this machine's interfaces, for a wildcard bind's `Host` check.
    private static func interfaceAddresses() -> [String] {
        do {
            return try System.enumerateDevices().compactMap { $0.address?.ipAddress }
        } catch {
            return []
        }
    }

    private static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
