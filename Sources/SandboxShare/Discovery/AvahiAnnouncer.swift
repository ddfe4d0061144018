import CAvahiClient
import Glibc
import SandboxCore

/// Publishes ``AnnouncedServices`` through the system's `avahi-daemon` (libavahi-client over
/// D-Bus), on Avahi's threaded poll: a thread of Avahi's own runs every call and callback, so
/// nothing here blocks the cooperative pool or an event loop.
///
/// ``start(_:report:)`` returns at once; the client connects on Avahi's thread. It is made with
/// `AVAHI_CLIENT_NO_FAIL`: with the bus up and the daemon not (yet) running, or when the daemon
/// restarts under the share, the client waits for it and the records are published again when it
/// returns. A name another service holds is replaced by Avahi's alternative (`… #2`).
/// ``withdraw()`` removes the records and stops the thread.
///
/// The mutable state is touched only on Avahi's thread (its callbacks), or in ``withdraw()`` once
/// that thread has ended: Avahi's poll is the lock, hence `@unchecked Sendable`.
final class AvahiAnnouncer: @unchecked Sendable {
    private let poll: OpaquePointer
    private let services: AnnouncedServices
    private let report: @Sendable (DiscoveryEvent) -> Void
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    /// The name in use: the requested one, or an alternative after a collision.
    private var name: String
    /// Whether the daemon has answered once (a later loss is reported as such).
    private var hasConnected = false
    /// Whether the group holds the services (reset and freed groups do not).
    private var isPublished = false

    private init(poll: OpaquePointer, services: AnnouncedServices, report: @escaping @Sendable (DiscoveryEvent) -> Void)
    {
        self.poll = poll
        self.services = services
        self.report = report
        name = services.name
    }

    /// Starts publishing `services` on a thread of Avahi's; returns at once. `report` hears what
    /// becomes of them, on that thread.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/discoveryFailed`` when Avahi's thread cannot be
    ///   made (no memory, no thread to spare).
    static func start(
        _ services: AnnouncedServices, report: @escaping @Sendable (DiscoveryEvent) -> Void
    ) throws(SandboxError) -> AvahiAnnouncer {
        guard let poll = avahi_threaded_poll_new() else {
            throw SandboxError(.discoveryFailed, "Avahi's poll loop cannot be made (out of memory); not announced.")
        }
        let announcer = AvahiAnnouncer(poll: poll, services: services, report: report)
        // Held by Avahi's callbacks until withdraw() has stopped them.
        let context = Unmanaged.passRetained(announcer).toOpaque()
        var now = timeval()
        avahi_elapse_time(&now, 0, 0)
        let api = avahi_threaded_poll_get(poll)
        let scheduled = api?.pointee.timeout_new?(api, &now, Self.connectCallback, context)
        guard scheduled != nil, avahi_threaded_poll_start(poll) == 0 else {
            avahi_threaded_poll_free(poll)
            Unmanaged<AvahiAnnouncer>.fromOpaque(context).release()
            throw SandboxError(
                .discoveryFailed, "Avahi's thread cannot be started (no thread to spare); not announced.",
            )
        }
        return announcer
    }

    /// Withdraws the records (the daemon sends their goodbyes) and stops Avahi's thread. Blocks
    /// — for the thread to finish its callback and for the daemon's answers, each bounded by
    /// D-Bus's reply timeout — so call it on a thread that may block, once.
    func withdraw() {
        avahi_threaded_poll_stop(poll)
        if let client { avahi_client_free(client) }  // frees the group, withdrawing its records
        client = nil
        group = nil
        avahi_threaded_poll_free(poll)
        Unmanaged.passUnretained(self).release()
    }

    // MARK: On Avahi's thread

    private static let connectCallback: AvahiTimeoutCallback = { timeout, context in
        guard let context else { return }
        let announcer = Unmanaged<AvahiAnnouncer>.fromOpaque(context).takeUnretainedValue()
        let api = avahi_threaded_poll_get(announcer.poll)
        api?.pointee.timeout_free?(timeout)
        announcer.connect(context: context)
    }

    private func connect(context: UnsafeMutableRawPointer) {
        var error: Int32 = 0
        let made = avahi_client_new(
            avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, Self.clientCallback, context, &error)
        guard let made else {
            report(.unavailable(Self.unreachable(error)))
            return
        }
        client = made
    }

    private static let clientCallback: AvahiClientCallback = { client, state, context in
        guard let context, let client else { return }
        Unmanaged<AvahiAnnouncer>.fromOpaque(context).takeUnretainedValue().clientChanged(client, state, context)
    }

    /// The first calls come from inside `avahi_client_new`, before ``client`` is set.
    private func clientChanged(_ client: OpaquePointer, _ state: AvahiClientState, _ context: UnsafeMutableRawPointer) {
        if self.client == nil { self.client = client }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            hasConnected = true
            publish(client, context: context)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The host's own name is being (re)established: ours follow once it runs again.
            if let group { avahi_entry_group_reset(group) }
            isPublished = false
        case AVAHI_CLIENT_CONNECTING:
            // No daemon on the bus (yet, or any more): its records went with it.
            if let group { avahi_entry_group_free(group) }
            group = nil
            isPublished = false
            report(hasConnected ? .daemonLost : .unavailable(Self.noDaemon))
        case AVAHI_CLIENT_FAILURE:
            group = nil
            isPublished = false
            report(.failed(Self.failure("the connection to avahi-daemon failed", avahi_client_errno(client))))
        default:
            break
        }
    }

    private static let groupCallback: AvahiEntryGroupCallback = { group, state, context in
        guard let context, let group else { return }
        Unmanaged<AvahiAnnouncer>.fromOpaque(context).takeUnretainedValue().groupChanged(group, state, context)
    }

    private func groupChanged(_ group: OpaquePointer, _ state: AvahiEntryGroupState, _ context: UnsafeMutableRawPointer)
    {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            report(.announced(name: name))
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename(context: context)
        case AVAHI_ENTRY_GROUP_FAILURE:
            let error = avahi_client_errno(avahi_entry_group_get_client(group))
            report(.failed(Self.failure("avahi-daemon could not publish '\(name)'", error)))
        default:
            break
        }
    }

    /// Adds every service to the group (made on first use) and commits it.
    private func publish(_ client: OpaquePointer, context: UnsafeMutableRawPointer) {
        if group == nil { group = avahi_entry_group_new(client, Self.groupCallback, context) }
        guard let group else {
            report(.failed(Self.failure("avahi-daemon refused a new entry group", avahi_client_errno(client))))
            return
        }
        guard !isPublished else { return }
        var text: UnsafeMutablePointer<AvahiStringList>?
        for entry in services.text.reversed() { text = avahi_string_list_add(text, entry) }
        defer { avahi_string_list_free(text) }
        let interface = services.scope.interface ?? AvahiIfIndex(AVAHI_IF_UNSPEC)
        let family: AvahiProtocol =
            switch services.scope.family {
            case .ipv4: AvahiProtocol(AVAHI_PROTO_INET)
            case .ipv6: AvahiProtocol(AVAHI_PROTO_INET6)
            case nil: AvahiProtocol(AVAHI_PROTO_UNSPEC)
            }
        for type in services.types {
            let status = avahi_entry_group_add_service_strlst(
                group, interface, family, AvahiPublishFlags(0), name, type, nil, nil, services.port, text)
            if status == AVAHI_ERR_COLLISION {
                rename(context: context)
                return
            }
            guard status == 0 else {
                report(.failed(Self.failure("avahi-daemon refused \(type) '\(name)'", status)))
                return
            }
        }
        let committed = avahi_entry_group_commit(group)
        isPublished = true
        if committed != 0 { report(.failed(Self.failure("avahi-daemon refused '\(name)'", committed))) }
    }

    /// Takes Avahi's alternative to the name in use (`Notes on studio #2`) and publishes again.
    private func rename(context: UnsafeMutableRawPointer) {
        guard let alternative = avahi_alternative_service_name(name) else { return }
        let previous = name
        name = String(cString: alternative)
        avahi_free(alternative)
        report(.renamed(from: previous, to: name))
        if let group { avahi_entry_group_reset(group) }
        isPublished = false
        if let client { publish(client, context: context) }
    }

    // MARK: Errors

    private static func unreachable(_ error: Int32) -> SandboxError {
        SandboxError(
            .discoveryUnavailable,
            "The share is not announced on the network: avahi-daemon cannot be reached over the system D-Bus ("
                + String(cString: avahi_strerror(error)) + "). Start the system bus (dbus-daemon --system) and "
                + "avahi-daemon to announce it; the share is served all the same.")
    }

    private static let noDaemon = SandboxError(
        .discoveryUnavailable,
        "The share is not announced on the network yet: avahi-daemon is not running on the system D-Bus. "
            + "Start avahi-daemon: the share is announced as soon as it runs, and is served all the same.")

    private static func failure(_ what: String, _ error: Int32) -> SandboxError {
        SandboxError(
            .discoveryFailed,
            "The share is not announced: \(what) (\(String(cString: avahi_strerror(error)))). "
                + "It is served all the same.")
    }
}
