import Foundation
import Glibc
import SandboxCore

/// Starts `sandboxd`: found in `SANDBOXD_PATH`, else beside the running executable (where
/// `swift build` and installs put both).
package enum DaemonExecutable {
    /// The daemon's path.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when there is no executable there.
    package static func path(environment: [String: String]) throws(SandboxError) -> String {
        let path: String
        if let explicit = environment["SANDBOXD_PATH"], !explicit.isEmpty {
            path = explicit
        } else {
            do throws(SandboxError) {
                path = try ExecutableSearch.besideThisExecutable("sandboxd")
            } catch {
                throw SandboxError(
                    .daemonUnavailable,
                    "The running executable's folder, where sandboxd is looked for, cannot be read: set SANDBOXD_PATH.",
                    path: "/proc/self/exe", cause: error.cause)
            }
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SandboxError(
                .daemonUnavailable,
                "No sandboxd executable at '\(path)': install it beside the app or set SANDBOXD_PATH.", path: path)
        }
        return path
    }

    /// Starts the daemon for `location` as a ``DetachedProcess`` (it writes its own log).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when it cannot be started.
    package static func start(
        _ path: String, location: DaemonLocation, environment: [String: String]
    ) throws(SandboxError) -> DetachedProcess {
        try DetachedProcess(
            [path, "--home", location.home, "--runtime-directory", location.runtimeDirectory, "--detach"],
            environment: environment)
    }
}
