import Glibc

/// What a route lookup for one address of a task's host found (``ReachabilityProbe``).
enum RouteLookup: Sendable, Equatable {
    /// The host name did not resolve; `code` is `getaddrinfo`'s (`EAI_*`).
    case unresolved(code: Int32)
    /// `connect` of a datagram socket (a route lookup that sends nothing) failed with `errno`.
    case noRoute(errno: Int32)
    /// A route exists, through the interface that owns the chosen source address (`nil` when no
    /// listed interface owns it).
    case route(interface: String?)
}

/// Whether a host can be reached now, as far as routes and links tell.
enum Reachability: Sendable, Equatable, CustomStringConvertible {
    case reachable
    case unreachable

    var description: String { self == .reachable ? "reachable" : "unreachable" }

    /// The errors of a route lookup that mean "no network to this host now".
    static let noRouteErrors: Set<Int32> = [ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN]
}

/// The I/O-free half of "is the network there?": turns route lookups and link states into a
/// verdict per endpoint, remembering which link carried each endpoint's route.
///
/// An endpoint is **unreachable** when
/// - no address has a route (`ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`, `EHOSTDOWN`), or every
///   route goes through an interface that is down or without carrier;
/// - its name cannot be resolved because the resolver is unreachable (`EAI_AGAIN`);
/// - **the link that carried its route is down** (it still exists, without `IFF_UP` or carrier),
///   even if another route now matches — typically the default route, through which a host of
///   the lost link's network cannot be reached. It becomes reachable again when that link comes
///   back, or through a link that came up after it went down (a move from Wi-Fi to a cable).
///
/// Anything else — a name that does not exist, an unexpected error — counts as reachable: the
/// transfer is tried and fails on its own with its precise error, rather than waiting forever for
/// a network that is there.
struct RouteMemory: Sendable {
    private struct Carrier: Sendable {
        var link: String
        /// Links that came up since ``link`` went down: a route through one of them is trusted.
        var cameUpSince: Set<String> = []
    }

    private var carriers: [Endpoint: Carrier] = [:]
    /// Whether each link was up with carrier at the last ``observe(links:)``.
    private var links: [String: Bool] = [:]

    init() {}

    /// Records the links' states (name → up with carrier) before a round of verdicts.
    mutating func observe(links now: [String: Bool]) {
        let cameUp = Set(now.filter { $0.value && links[$0.key] != true }.keys)
        for (endpoint, carrier) in carriers where links[carrier.link] == false || now[carrier.link] == false {
            carriers[endpoint]?.cameUpSince.formUnion(cameUp)
        }
        links = now
    }

    /// The verdict for `endpoint` from the lookups of its addresses.
    mutating func reachability(of endpoint: Endpoint, _ lookups: [RouteLookup]) -> Reachability {
        let running = lookups.compactMap { lookup -> String? in
            guard case .route(let interface) = lookup else { return nil }
            let name = interface ?? ""
            return name.isEmpty || links[name] != false ? name : nil
        }
        if let carrier = carriers[endpoint], links[carrier.link] == false {
            // The link that carried the route is down: only a link that came up since will do.
            guard let switched = running.first(where: carrier.cameUpSince.contains) else { return .unreachable }
            carriers[endpoint] = Carrier(link: switched)
            return .reachable
        }
        if let link = running.first {
            carriers[endpoint] = link.isEmpty ? nil : Carrier(link: link)
            return .reachable
        }
        let offline =
            !lookups.isEmpty
            && lookups.allSatisfy { lookup in
                switch lookup {
                case .route: true  // through a link that is down
                case .noRoute(let code): Reachability.noRouteErrors.contains(code)
                case .unresolved(let code): code == EAI_AGAIN
                }
            }
        return offline ? .unreachable : .reachable
    }

    /// Forgets endpoints no task uses.
    mutating func keep(only endpoints: Set<Endpoint>) {
        carriers = carriers.filter { endpoints.contains($0.key) }
    }
}
