/// Where `sandboxd` for one sandbox home keeps its socket, locks, queue and log: the one place
/// these paths are computed (the daemon, the apps' library and `sandbox run`'s broker all meet
/// there).
///
/// The socket and the locks live in the runtime directory `$XDG_RUNTIME_DIR/sandbox/` (the home's
/// `Device/` when the variable is unset or not absolute); the event queue and the log live in the
/// home's `Device/sandboxd/`, which survives a logout (the runtime directory does not).
package struct DaemonLocation: Sendable, Hashable {
    /// The sandbox home the daemon serves (a host path).
    package var home: String
    /// The folder of the socket and the locks.
    package var runtimeDirectory: String
    /// The folder of the queue and the log.
    package var stateDirectory: String

    /// The Unix socket clients connect to.
    package var socket: String { runtimeDirectory + "/sandboxd.sock" }
    /// The lock a client holds while it starts the daemon, so two starting at once make one.
    package var spawnLock: String { runtimeDirectory + "/sandboxd.spawn.lock" }
    /// The lock the daemon holds while it runs; it holds the daemon's pid.
    package var pidFile: String { runtimeDirectory + "/sandboxd.pid" }
    /// The daemon's log.
    package var log: String { stateDirectory + "/sandboxd.log" }
    /// The durable event queue.
    package var queue: String { stateDirectory + "/queue.sqlite" }

    /// The locations for the home at `home` under `environment`'s `XDG_RUNTIME_DIR`.
    package init(home: String, environment: [String: String]) {
        self.home = home
        let device = home + "/Device"
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            runtimeDirectory = runtime + "/sandbox"
        } else {
            runtimeDirectory = device
        }
        stateDirectory = device + "/sandboxd"
    }

    /// Explicit folders (`sandboxd --runtime-directory`).
    package init(home: String, runtimeDirectory: String, stateDirectory: String) {
        self.home = home
        self.runtimeDirectory = runtimeDirectory
        self.stateDirectory = stateDirectory
    }
}
