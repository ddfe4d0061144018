import SandboxCore

/// What becomes of a share's announcement (``ShareAnnouncement/report``).
public enum DiscoveryEvent: Sendable {
    /// The daemon published every record under `name`.
    case announced(name: String)
    /// Another service on the network has the name: the share is announced under Avahi's
    /// alternative (`Notes on studio #2`).
    case renamed(from: String, to: String)
    /// Nothing announces the share (no system D-Bus, or no `avahi-daemon` on it), which is
    /// served all the same; the error says what was missing and how to start it
    /// (``SandboxCore/SandboxError/Code/discoveryUnavailable``). When the bus answers, the share is
    /// announced as soon as the daemon runs.
    case unavailable(SandboxError)
    /// The daemon stopped under the running share: the records went with it, and are published
    /// again when it returns.
    case daemonLost
    /// The daemon refused the records (``SandboxCore/SandboxError/Code/discoveryFailed``): the share
    /// goes on unannounced.
    case failed(SandboxError)
}
