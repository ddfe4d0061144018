/// How a share is served: where it listens, who may connect, what they may do.
public struct ShareConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` by default, so only this machine can connect.
    public var host: String
    /// The TCP port; 0 picks a free one.
    public var port: Int
    /// Whether clients may only read: every method that changes something is refused with 403.
    public var readOnly: Bool
    /// The largest upload accepted, in bytes; `nil` for no limit but the disk's. A larger one is
    /// refused with 413 and leaves nothing behind.
    public var maximumUploadSize: Int64?
    /// The user name and password (the pairing code) clients send with HTTP Basic.
    public var credentials: ShareCredentials
    /// How long a connection may stay silent before it is closed (slow or idle clients); one that
    /// has not logged in is closed sooner (``ConnectionLimits/unauthenticatedTimeout``).
    public var idleTimeout: Duration
    /// How many connections are held, and how soon one that has not logged in is closed.
    public var connectionLimits: ConnectionLimits
    /// The certificate and key to serve HTTPS with; `nil` for plain HTTP. The device's own
    /// (``DeviceCertificate``) or the user's (``ShareTLSIdentity/init(certificateFile:keyFile:now:)``).
    public var tls: ShareTLSIdentity?
    /// The one-time token of this run's pairing link (`/.sandbox/pair/<token>`, ``PairingToken``);
    /// `nil` for none.
    public var pairingToken: PairingToken?
    /// How the share announces itself on the local network (DNS-SD/mDNS); `nil` (the default) for
    /// not at all. Announcing a loopback address is seen by this machine only.
    public var announcement: ShareAnnouncement?

    /// A configuration; see each property for the defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        readOnly: Bool = false,
        maximumUploadSize: Int64? = nil,
        credentials: ShareCredentials,
        idleTimeout: Duration = .seconds(60),
        connectionLimits: ConnectionLimits = ConnectionLimits(),
        tls: ShareTLSIdentity? = nil,
        pairingToken: PairingToken? = nil,
        announcement: ShareAnnouncement? = nil
    ) {
        self.host = host
        self.port = port
        self.readOnly = readOnly
        self.maximumUploadSize = maximumUploadSize
        self.credentials = credentials
        self.idleTimeout = idleTimeout
        self.connectionLimits = connectionLimits
        self.tls = tls
        self.pairingToken = pairingToken
        self.announcement = announcement
    }

    /// `https` with ``tls``, else `http`.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// The port a client leaves out of `Host`: 443 with ``tls``, else 80.
    var defaultPort: Int { tls == nil ? 80 : 443 }

    /// Whether the address is reachable only from this machine.
    public var isLoopback: Bool { Self.isLoopback(host) }

    /// Whether the address `host` is reachable only from this machine.
    public static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// Whether the address means every interface.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// The `Host` header values accepted once the server listens on `port` (DNS rebinding: a page
    /// on another name that resolves here is refused). Lowercased, as `host[:port]`; `host` alone
    /// too on the scheme's default port (80, or 443 with TLS).
    ///
    /// A wildcard address (`0.0.0.0`, `::`) accepts the addresses of this machine's interfaces
    /// (`localAddresses`), its host name and `<host name>.local`.
    func allowedAuthorities(port: Int, localAddresses: [String] = [], hostName: String? = nil) -> Set<String> {
        let bracketed: (String) -> String = { $0.contains(":") ? "[\($0)]" : $0 }
        var hosts: Set<String> = [host]
        if isLoopback { hosts.formUnion(Self.loopbackNames) }
        if isWildcard {
            hosts.formUnion(localAddresses)
            hosts.formUnion(Self.loopbackNames)
            if let hostName { hosts.formUnion([hostName, hostName + ".local"]) }
        }
        hosts = Set(hosts.map(bracketed))
        var result = Set<String>()
        for name in hosts {
            result.insert("\(name):\(port)".lowercased())
            if port == defaultPort { result.insert(name.lowercased()) }
        }
        return result
    }

    /// The names a certificate for this share has to carry: those of the `Host` check
    /// (``allowedAuthorities(port:localAddresses:hostName:)``, unbracketed, less a wildcard), and
    /// always the loopback names, the host name and `<host name>.local`.
    func certificateNames(localAddresses: [String], hostName: String?) -> Set<String> {
        var names: Set<String> = Self.loopbackNames
        if !isWildcard { names.insert(host) }
        if isWildcard { names.formUnion(localAddresses) }
        if let hostName { names.formUnion([hostName, hostName + ".local"]) }
        return names
    }

    private static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "::1"]
}
