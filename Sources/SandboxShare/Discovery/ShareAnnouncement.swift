import Sandbox
import SandboxCore
import SandboxStore

/// How a share announces itself on the local network over DNS-SD/mDNS, through the system's
/// `avahi-daemon`: as `_webdav._tcp` and `_http._tcp` (`_webdavs._tcp` and `_https._tcp` with
/// TLS) on the share's port, with the TXT record `path=/` and the user name (`u=`) — never the
/// pairing code. What Finder's and Windows' network browsers list.
///
/// The records are published on the interface that holds the share's address (every interface
/// for a wildcard address, the loopback interface for a loopback one), and withdrawn when the
/// share stops. Without a reachable daemon the share goes on unannounced and ``report`` hears why.
public struct ShareAnnouncement: Sendable {
    /// The service's name, as browsers list it (``name(app:host:)``). Cut to DNS-SD's 63 bytes.
    public var name: String
    /// Hears what becomes of the announcement: called on Avahi's thread, so it must return
    /// quickly (print, log; never wait).
    public var report: @Sendable (DiscoveryEvent) -> Void

    /// An announcement under `name`.
    public init(name: String, report: @escaping @Sendable (DiscoveryEvent) -> Void = { _ in }) {
        self.name = Self.label(name)
        self.report = report
    }

    /// `<app> on <host>`, as macOS names a machine's shares ("Notes on studio"): the host's first
    /// label, this machine's name when `host` is `nil`.
    public static func name(app: String, host: String? = nil) -> String {
        let machine = (host ?? ShareServer.hostName() ?? "this computer").split(separator: ".").first ?? "this computer"
        return label("\(app) on \(machine)")
    }

    /// ``name(app:host:)`` of `container`'s app on this machine: its display name
    /// (`CFBundleDisplayName`, else `CFBundleName`, read from the verified bundle), else its
    /// identifier.
    ///
    /// - Throws: the errors of `Container.checkFileSharing()` (SandboxStore):
    ///   `file-sharing-disabled` for an app that does not share, the errors of reading its bundle.
    public static func name(of container: Container) throws(SandboxError) -> String {
        name(app: try container.checkFileSharing().displayName ?? container.identifier.description)
    }

    /// The most bytes of UTF-8 in a DNS label, the service's name.
    static let maximumNameBytes = 63

    /// `text` without control characters (an app names itself: its name is printed on terminals),
    /// cut to ``maximumNameBytes`` at a character boundary.
    static func label(_ text: String) -> String {
        var result = ""
        var bytes = 0
        for character in text
        where !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            let size = String(character).utf8.count
            guard bytes + size <= maximumNameBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}
