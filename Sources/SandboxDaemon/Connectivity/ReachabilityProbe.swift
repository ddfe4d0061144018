import Glibc

/// Asks the kernel whether an endpoint can be reached now, without sending a packet: resolves the
/// host, then for each address `connect`s a datagram socket (a route lookup) and checks that the
/// interface owning the chosen source address is up with a carrier. Blocking (name resolution
/// included): call it only on a thread of one's own (``NetworkMonitor``'s).
enum ReachabilityProbe {
    /// The interfaces, once per round of lookups.
    struct Interfaces {
        /// Name → up (`IFF_UP`) with carrier (`IFF_RUNNING`).
        var running: [String: Bool] = [:]
        fileprivate var byAddress: [SourceAddress: String] = [:]
    }

    /// Every interface with its addresses (`getifaddrs`); none when it fails.
    static func interfaces() -> Interfaces {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let list else { return Interfaces() }
        defer { freeifaddrs(list) }
        var result = Interfaces()
        var next: UnsafeMutablePointer<ifaddrs>? = list
        while let entry = next {
            next = entry.pointee.ifa_next
            guard let cName = entry.pointee.ifa_name else { continue }
            let name = String(cString: cName)
            let flags = entry.pointee.ifa_flags
            result.running[name] = flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0
            if let address = entry.pointee.ifa_addr, let source = SourceAddress(address) {
                result.byAddress[source] = name
            }
        }
        return result
    }

    /// The route lookups of each address of `endpoint` (resolving its name first).
    static func lookups(_ endpoint: Endpoint, interfaces: Interfaces) -> [RouteLookup] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let host = endpoint.host.hasPrefix("[") ? String(endpoint.host.dropFirst().dropLast()) : endpoint.host
        let status = getaddrinfo(host, String(endpoint.port), &hints, &list)
        guard status == 0, let list else { return [.unresolved(code: status)] }
        defer { freeaddrinfo(list) }
        var lookups: [RouteLookup] = []
        var next: UnsafeMutablePointer<addrinfo>? = list
        while let info = next {
            next = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            lookups.append(lookup(address, length: info.pointee.ai_addrlen, family: info.pointee.ai_family, interfaces))
        }
        return lookups
    }

    private static func lookup(
        _ address: UnsafeMutablePointer<sockaddr>, length: socklen_t, family: Int32, _ interfaces: Interfaces
    ) -> RouteLookup {
        let fd = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .noRoute(errno: errno) }
        defer { close(fd) }
        guard connect(fd, address, length) == 0 else { return .noRoute(errno: errno) }
        var local = sockaddr_storage()
        var localLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let source = withUnsafeMutablePointer(to: &local) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getsockname(fd, address, &localLength) == 0 ? SourceAddress(address) : nil
            }
        }
        return .route(interface: source.flatMap { interfaces.byAddress[$0] })
    }
}

/// An IPv4 or IPv6 address as bytes, to match a socket's source address with an interface's.
struct SourceAddress: Hashable {
    var bytes: [UInt8]

    /// `nil` for another family (an interface's link-layer address).
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            bytes = withUnsafeBytes(of: ip) { Array($0) }
        case AF_INET6:
            let ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            bytes = withUnsafeBytes(of: ip) { Array($0) }
        default:
            return nil
        }
    }
}
