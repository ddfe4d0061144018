import Foundation
import SandboxTransfer

/// How a daemon runs: its paths, its idle limit, and what it gives its clients.
public struct DaemonOptions: Sendable {
    /// Where its socket, locks, queue and log are.
    public var paths: DaemonPaths
    /// With no client and no unfinished task for this long, the daemon exits.
    public var idleExit: Duration
    /// How long queued events are kept for an app that does not come back.
    public var eventRetention: Duration
    /// Connections, the hello's deadline, and bytes held for clients.
    public var limits: ConnectionLimits

    /// Options as given; `idleExit` 30 s, `eventRetention` 7 days and the standard limits by default.
    public init(
        paths: DaemonPaths, idleExit: Duration = .seconds(30), eventRetention: Duration = .seconds(7 * 86_400),
        limits: ConnectionLimits = .standard
    ) {
        self.paths = paths
        self.idleExit = idleExit
        self.eventRetention = eventRetention
        self.limits = limits
    }
}
