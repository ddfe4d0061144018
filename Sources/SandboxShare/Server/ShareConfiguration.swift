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

    /// A configuration; see each property for the defaults.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        readOnly: Bool = false,
        maximumUploadSize: Int64? = nil,
        credentials: ShareCredentials,
        idleTimeout: Duration = .seconds(60),
        connectionLimits: ConnectionLimits = ConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.readOnly = readOnly
        self.maximumUploadSize = maximumUploadSize
        self.credentials = credentials
        self.idleTimeout = idleTimeout
        self.connectionLimits = connectionLimits
    }

    /// Whether the address is reachable only from this machine.
    public var isLoopback: Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// Whether the address means every interface.
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// The `Host` header values accepted once the server listens on `port` (DNS rebinding: a page
    /// on another name that resolves here is refused). Lowercased, as `host[:port]`.
    ///
    /// A wildcard address (`0.0.0.0`, `::`) accepts the addresses of this machine's interfaces
    /// (`localAddresses`), its host name and `<host name>.local`.
    func allowedAuthorities(port: Int, localAddresses: [String] = [], hostName: String? = nil) -> Set<String> {
        let bracketed: (String) -> String = { $0.contains(":") ? "[\($0)]" : $0 }
        var hosts: Set<String> = [bracketed(host)]
        if isLoopback { hosts.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
        if isWildcard {
            hosts.formUnion(localAddresses.map(bracketed))
            hosts.formUnion(["localhost", "127.0.0.1", "[::1]"])
            if let hostName { hosts.formUnion([hostName, hostName + ".local"]) }
        }
        var result = Set<String>()
        for name in hosts {
            result.insert("\(name):\(port)".lowercased())
            if port == 80 { result.insert(name.lowercased()) }
        }
        return result
    }
}
