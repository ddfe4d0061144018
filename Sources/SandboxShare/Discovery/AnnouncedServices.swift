/// The DNS-SD records a share publishes: one service per type, all under one name, on one port,
/// with one TXT record, on the interfaces that reach the share's address.
struct AnnouncedServices: Sendable, Equatable {
    /// The service's name (``ShareAnnouncement/name``).
    var name: String
    /// `_webdav._tcp` and `_http._tcp`, or `_webdavs._tcp` and `_https._tcp` with TLS.
    var types: [String]
    var port: UInt16
    /// `path=/` (what Finder and Windows look for) and `u=<user>`; never the pairing code.
    var text: [String]
    /// Where the records are published.
    var scope: Scope

    /// The interfaces and address family the records are published on.
    struct Scope: Sendable, Equatable {
        /// An interface index; `nil` for every interface.
        var interface: Int32?
        /// `nil` for both families.
        var family: Family?

        static let everywhere = Scope(interface: nil, family: nil)
    }

    enum Family: Sendable, Equatable {
        case ipv4, ipv6
    }

    /// An address of one of this machine's interfaces.
    struct InterfaceAddress: Sendable, Equatable {
        var index: Int32
        var address: String
    }

    /// The records of `configuration`'s share, listening on `port`; `interfaces` are this machine's
    /// addresses, to find the one interface a share bound to one address is reachable on.
    init(name: String, configuration: ShareConfiguration, port: Int, interfaces: [InterfaceAddress]) {
        self.name = name
        let secure = configuration.tls != nil
        types = secure ? ["_webdavs._tcp", "_https._tcp"] : ["_webdav._tcp", "_http._tcp"]
        self.port = UInt16(clamping: port)
        text = ["path=/", "u=\(configuration.credentials.user)"]
        scope = Self.scope(host: configuration.host, interfaces: interfaces)
    }

    /// A wildcard address: every interface (IPv4 only for `0.0.0.0`). Another address: the
    /// interface that holds it — announcing it elsewhere names a host whose other addresses do not
    /// serve the share. A loopback address the loopback interface (`localhost` has both families).
    static func scope(host: String, interfaces: [InterfaceAddress]) -> Scope {
        let family: Family? = host == "localhost" ? nil : host.contains(":") ? .ipv6 : .ipv4
        if host == "0.0.0.0" || host == "::" { return Scope(interface: nil, family: family) }
        let holder =
            ShareConfiguration.isLoopback(host)
            ? interfaces.first { ShareConfiguration.isLoopback($0.address) }
            : interfaces.first { $0.address.lowercased() == host.lowercased() }
        return Scope(interface: holder?.index, family: family)
    }
}
