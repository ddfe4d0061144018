/// How to make a ``BackgroundSession``: `URLSessionConfiguration.background(withIdentifier:)`.
///
/// A background session's tasks belong to `sandboxd`, not to the process: they go on when the app
/// exits or crashes, and an app that re-creates a session with the same ``identifier`` receives
/// what happened meanwhile.
public struct BackgroundConfiguration: Sendable, Hashable {
    /// The session's name, one plain file name; the same identifier finds the same tasks again.
    public var identifier: String
    /// Where the daemon listens; `nil` for the default of the container's home
    /// (``DaemonPaths/init(home:environment:)``).
    public var daemonPaths: DaemonPaths?
    /// Whether connecting starts `sandboxd` when it is not running (the default).
    public var startsDaemon: Bool
    /// Whether this session receives the session's events (the default). A tool that only starts,
    /// lists or cancels tasks sets it to `false`: the events stay queued for the app.
    public var receivesEvents: Bool
    /// Whether the session's tasks wait while their host cannot be reached — no route to it, or
    /// the link carrying the route is down — instead of failing (on by default, as for iOS's
    /// background sessions). A waiting task reports
    /// ``TransferEvent/taskIsWaitingForConnectivity(_:)`` and continues from its partial file
    /// when the daemon sees the network come back (netlink route, link and address changes);
    /// the wait is not a failed attempt. Off: an unreachable host is retried and then fails as
    /// in the foreground.
    public var waitsForConnectivity = true
    /// Whether the session's tasks are discretionary: they run only while `sandboxd` runs no
    /// other, non-discretionary task (of this user: the daemon serves one), and are suspended
    /// (their partial files kept) when one starts. Off by default.
    public var isDiscretionary = false
    /// `allowsExpensiveNetworkAccess` (iOS: cellular, personal hotspot). Accepted and recorded
    /// but not enforced: Linux has no per-interface "expensive" flag the daemon can read without
    /// NetworkManager's D-Bus API (see the README's "Background downloads").
    public var allowsExpensiveNetworkAccess = true
    /// `allowsConstrainedNetworkAccess` (iOS: Low Data Mode). Accepted and recorded but not
    /// enforced, for the same reason as ``allowsExpensiveNetworkAccess``.
    public var allowsConstrainedNetworkAccess = true

    /// A background configuration named `identifier`.
    public static func background(identifier: String) -> BackgroundConfiguration {
        BackgroundConfiguration(identifier: identifier, daemonPaths: nil, startsDaemon: true, receivesEvents: true)
    }
}
