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

    /// A background configuration named `identifier`.
    public static func background(identifier: String) -> BackgroundConfiguration {
        BackgroundConfiguration(identifier: identifier, daemonPaths: nil, startsDaemon: true, receivesEvents: true)
    }
}
