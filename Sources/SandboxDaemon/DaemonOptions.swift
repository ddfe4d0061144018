import Foundation
import SandboxTransfer

/// How a daemon runs: its paths and its idle limit.
public struct DaemonOptions: Sendable {
    /// Where its socket, locks, queue and log are.
    public var paths: DaemonPaths
    /// With no client and no unfinished task for this long, the daemon exits.
    public var idleExit: Duration
    /// How long queued events are kept for an app that does not come back.
    public var eventRetention: Duration

    /// Options as given; `idleExit` 30 s and `eventRetention` 7 days by default.
    public init(paths: DaemonPaths, idleExit: Duration = .seconds(30), eventRetention: Duration = .seconds(7 * 86_400))
    {
        self.paths = paths
        self.idleExit = idleExit
        self.eventRetention = eventRetention
    }
}
