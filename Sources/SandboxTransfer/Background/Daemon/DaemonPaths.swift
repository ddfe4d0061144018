import Foundation
import Glibc
import Sandbox

/// Where `sandboxd` keeps its socket, locks, queue and log for one sandbox home.
///
/// The socket and the locks live in the runtime directory `$XDG_RUNTIME_DIR/sandbox/` (the home's
/// `Device/` when the variable is unset), mode 0700; the event queue and the log live in the home's
/// `Device/sandboxd/`, which survives a logout (the runtime directory does not).
public struct DaemonPaths: Sendable, Hashable {
    /// The folder of the socket and the locks.
    public var runtimeDirectory: String
    /// The folder of the queue and the log.
    public var stateDirectory: String
    /// The sandbox home the daemon serves (a host path).
    public var home: String

    /// The Unix socket apps connect to.
    public var socket: String { location.socket }
    /// The lock an app holds while it starts the daemon, so two apps starting at once make one.
    var spawnLock: String { location.spawnLock }
    /// The lock the daemon holds while it runs; it holds the daemon's pid.
    public var pidFile: String { location.pidFile }
    /// The daemon's log.
    public var log: String { location.log }
    /// The durable event queue.
    public var queue: String { location.queue }
    /// The same paths as the layers below see them (``Sandbox``'s `DaemonLocation`, the one place
    /// they are computed).
    package var location: DaemonLocation {
        DaemonLocation(home: home, runtimeDirectory: runtimeDirectory, stateDirectory: stateDirectory)
    }

    /// The longest socket path Linux accepts (`sun_path` is 108 bytes with its NUL).
    static let maximumSocketPathLength = 107

    /// The paths for `home` under `environment`'s `XDG_RUNTIME_DIR`.
    public init(home: SandboxHome, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(DaemonLocation(home: home.location, environment: environment))
    }

    package init(_ location: DaemonLocation) {
        home = location.home
        runtimeDirectory = location.runtimeDirectory
        stateDirectory = location.stateDirectory
    }

    /// Creates the folders (0700) and checks they are this user's and closed to others.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with the core's `permission-denied` code when a folder belongs to
    ///   another user or cannot be made private; ``/SandboxCore/SandboxError/Code/invalidArgument`` when the
    ///   socket path is too long for a Unix socket.
    public func prepare() throws(SandboxError) {
        guard socket.utf8.count <= Self.maximumSocketPathLength else {
            throw SandboxError(
                .invalidArgument,
                "The socket path '\(socket)' is longer than the \(Self.maximumSocketPathLength) bytes a Unix socket allows; set XDG_RUNTIME_DIR to a shorter folder.",
                path: socket)
        }
        for directory in [runtimeDirectory, stateDirectory] {
            try Self.makePrivateDirectory(directory)
        }
    }

    private static func makePrivateDirectory(_ path: String) throws(SandboxError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SandboxError(
                SandboxError.Code.permissionDenied, "Could not create sandboxd's folder '\(path)': \(error).",
                path: path, underlying: .wrapping(error))
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw SandboxError(
                SandboxError.Code.notADirectory, "sandboxd's folder '\(path)' is not a directory; remove it.",
                path: path)
        }
        guard info.st_uid == geteuid() else {
            throw SandboxError(
                SandboxError.Code.permissionDenied,
                "sandboxd's folder '\(path)' belongs to user \(info.st_uid), not to this user (\(geteuid())); set XDG_RUNTIME_DIR to a folder of yours.",
                path: path)
        }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            throw SandboxError(
                SandboxError.Code.permissionDenied,
                "sandboxd's folder '\(path)' is open to other users and could not be made private (errno \(errno)).",
                path: path)
        }
    }
}
