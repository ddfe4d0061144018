import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Sandbox
import SandboxStore
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
///
/// A server made from a container is a live user of it (a ``/Sandbox/ContainerPresenter`` of kind
/// ``/Sandbox/PresenterKind/share``) while it runs: a restore of the app has it refuse changes
/// (503, `Retry-After: 1`) while reads go on, let the changes in flight end, then serve the
/// restored Documents; an uninstall stops it (``run(onListening:)`` returns); the device locking
/// pauses its changes meanwhile.
public struct ShareServer: Sendable {
    /// The shared folder.
    public let documents: ConfinedRoot
    /// How it is served.
    public let configuration: ShareConfiguration
    private let logger: Logger
    /// The container's device's Data Protection: uploads into a folder with a default class are
    /// sealed with it.
    private let dataProtection: DataProtection?
    /// The home and app of a server made from a container, which registers as their presenter.
    private let origin: Origin?

    private struct Origin: Sendable {
        let home: SandboxHome
        let app: AppIdentifier
    }

    /// A server for `container`'s Documents folder, when the app declares file sharing.
    ///
    /// As on iOS, only an app whose installed bundle sets `UIFileSharingEnabled` to true in its
    /// `Info.plist` is shared; the key is read from the bundle its signature vouches for
    /// (`Container.checkFileSharing()`, SandboxStore), never from a file the app can write.
    ///
    /// Documents is opened from the container's root without following a link: an app can replace
    /// its Documents with a symbolic link (to its own Library, say), and the share must not serve
    /// what the link names. The container's root is reopened as a root that refuses every symlink,
    /// so the kernel refuses one at `Documents` itself (`RESOLVE_NO_SYMLINKS`) — no window between
    /// a check and the open.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with `file-sharing-disabled`
    ///   when the app does not declare file sharing, and the errors of reading its `Info.plist`
    ///   (`Container.bundleInfo()`: `invalid-info-plist`,
    ///   `bundle-modified`, …); with
    ///   ``SandboxCore/SandboxError/Code/forbidden`` when Documents is a symbolic link, and with the
    ///   core's code when it cannot be opened (missing, not a directory).
    public init(container: Container, configuration: ShareConfiguration, logger: Logger) throws(SandboxError) {
        try container.checkFileSharing()
        documents = try Self.openDocuments(of: container)
        self.configuration = configuration
        self.logger = logger
        dataProtection = DataProtection(home: container.home)
        origin = Origin(home: container.home, app: container.identifier)
    }

    /// `container`'s Documents folder, opened as a root that refuses every symlink (see
    /// ``init(container:configuration:logger:)``); after a restore, of the restored container.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/forbidden`` when Documents is a symbolic
    ///   link, and with the core's code when it cannot be opened (missing, not a directory).
    static func openDocuments(of container: Container) throws(SandboxError) -> ConfinedRoot {
        guard let documentsPath = ContainerDirectory.documents.path else {
            throw SandboxError(.internalError, "The container has no Documents folder.")
        }
        do throws(SandboxError) {
            let home = try container.root.openSubroot(at: .root, refusingSymlinks: true)
            return try home.openSubroot(at: documentsPath)
        } catch  where error.code == .symlinkLoop {
            throw Self.linkRefusal(container, path: documentsPath, error)
        } catch {
            throw .fileSystem(
                error, path: documentsPath.description, doing: "open the Documents folder of \(container.identifier)")
        }
    }

    /// Documents is a symbolic link: the refusal `sandbox path … documents` gives for it
    /// (``/Sandbox/Container/locate(_:)``, which names the link and the remedy) as the cause.
    private static func linkRefusal(_ container: Container, path: ContainerPath, _ error: SandboxError) -> SandboxError
    {
        var cause = error
        do throws(SandboxError) {
            _ = try container.locate(.documents)
        } catch {
            cause = error
        }
        return SandboxError(
            .forbidden,
            "The Documents folder of \(container.identifier) is a symbolic link, which the share does not follow: "
                + "nothing is shared. Remove the link, create the Documents folder again, then share.",
            path: path.description, underlying: .wrapping(cause))
    }

    /// A server for the folder `documents` (which should refuse symlinks:
    /// ``/SandboxCore/ConfinedRoot/openSubroot(at:refusingSymlinks:)``). No app is involved, so
    /// no `Info.plist` is consulted: serving an app's Documents goes through
    /// ``init(container:configuration:logger:)``, which checks that the app declares file sharing.
    public init(documents: ConfinedRoot, configuration: ShareConfiguration, logger: Logger) {
        self.documents = documents
        self.configuration = configuration
        self.logger = logger
        dataProtection = nil
        origin = nil
    }

    /// Listens and serves until SIGINT or SIGTERM, or until the task is cancelled; a server made
    /// from a container also until its app is uninstalled.
    ///
    /// Raises the process's soft limit on open descriptors to its hard limit first, and holds at
    /// most the configuration's ``ShareConfiguration/connectionLimits``, fewer when the
    /// descriptor limit leaves less (read at each new connection: the server never reaches it):
    /// connections that have not logged in are closed after a few seconds without a request, or
    /// to make room for new ones; a shortage of descriptors pauses accepting briefly rather than
    /// retrying at once.
    ///
    /// - Parameter onListening: called once with the port the server listens on (the one picked
    ///   when the configuration's port is 0).
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidCertificate`` when the configuration's
    ///   ``ShareConfiguration/tls`` cannot be used, before anything listens; the listener's error
    ///   when the address cannot be bound (in use, not local); for a
    ///   server made from a container, the errors of its registration as the container's presenter
    ///   and of opening a restored Documents (``SandboxCore/SandboxError/Code/forbidden`` for a
    ///   symbolic link): the server stops then rather than serve a folder the app no longer has.
    public func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        // A flood of connections can exhaust the descriptors: libdispatch must not need one then.
        await DispatchClocks.prime()
        let configuration = self.configuration
        let logger = self.logger
        let documents = self.documents
        let dataProtection = self.dataProtection
        let ready = ResponderSlot()
        let gate = PairingGate(credentials: configuration.credentials, logger: logger)
        let devices = try origin.map { (origin) throws(SandboxError) in
            try DeviceSessions(home: origin.home, app: origin.app)
        }
        try devices?.reset()
        let coordinator = origin.map { ShareCoordinator(home: $0.home, app: $0.app, slot: ready, logger: logger) }
        ProcessDescriptors.raiseSoftLimitToHard()
        let registry = ConnectionRegistry(budget: DescriptorBudget(limits: configuration.connectionLimits))
        let tls = try configuration.tls?.makeContext()
        let announcer = ShareAnnouncer(configuration.announcement)
        let connections = EventLoopHTTP1Channel(
            configuration: .init(
                additionalChannelHandlers: [ExpectContinueHandler(gate: gate)],
                idleTimeout: TimeAmount(configuration.idleTimeout)),
            responder: ReadyResponder(slot: ready), registry: registry, credentials: configuration.credentials,
            tls: tls)
        let server = connections.server(
            configuration: ServerConfiguration(
                address: .hostname(configuration.host, port: configuration.port), backlog: Self.backlog),
            onServerRunning: { channel in
                await Self.pauseOnDescriptorShortage(listener: channel, registry: registry, logger: logger)
                registry.measureDescriptors()
                let port = channel.localAddress?.port ?? configuration.port
                let authorities = configuration.allowedAuthorities(
                    port: port, localAddresses: Self.interfaceAddresses(), hostName: Self.hostName())
                let factory = ResponderFactory(
                    configuration: configuration, allowedAuthorities: authorities, locks: LockManager(), gate: gate,
                    sessions: WebSessions(),
                    pairing: configuration.pairingToken.map {
                        PairingLink(token: $0, certificateFingerprint: configuration.tls?.fingerprint)
                    }, devices: devices, writes: WriteGate(), dataProtection: dataProtection, logger: logger)
                if let coordinator {
                    do throws(SandboxError) {
                        try await coordinator.start(
                            description: "sandbox share on \(Self.authority(configuration.host, port))",
                            factory: factory)
                    } catch {
                        coordinator.fail(error)  // nothing is served: the server stops with the error
                        return
                    }
                } else {
                    ready.set(factory.responder(serving: documents))
                }
                announcer.start(configuration: configuration, port: port)
                await onListening(port)
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let failure = try await withThrowingTaskGroup(of: SandboxError?.self) { tasks -> SandboxError? in
            if let coordinator {
                tasks.addTask {
                    let ending = await coordinator.follow()
                    if case .closed = ending { return nil }
                    await group.triggerGracefulShutdown()
                    if case .failed(let error) = ending { return error }
                    return nil
                }
            }
            // Once the server stopped, the share stops following (a wait to let go ends too).
            do {
                try await group.run()
            } catch {
                coordinator?.close()
                tasks.cancelAll()
                await announcer.withdraw()
                throw error
            }
            await announcer.withdraw()
            coordinator?.close()
            tasks.cancelAll()
            return try await tasks.next() ?? nil
        }
        if let failure { throw failure }
    }

    /// `host:port`, the host bracketed when it is an IPv6 address.
    private static func authority(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// How many connections may wait to be accepted: Linux's usual `somaxconn` (Hummingbird's
    /// 256 filled up under a burst of connections, and the owner's connection, dropped, was
    /// retried only after a second).
    private static let backlog = 4096

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
    static func interfaceAddresses() -> [String] {
        do {
            return try System.enumerateDevices().compactMap { $0.address?.ipAddress }
        } catch {
            return []
        }
    }

    static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
