import Foundation
import Glibc
import Sandbox
import SandboxCore

/// Connects to `sandboxd`: through the launcher's broker when the app runs confined (it cannot
/// reach the socket itself), else to the socket, starting the daemon when nothing listens
/// (``/Sandbox/DaemonRendezvous``, on an I/O engine thread: the start blocks).
package enum DaemonLauncher {
    /// A connection that has shaken hands with the running daemon, started if needed.
    ///
    /// - Throws: `daemon-unavailable` when it cannot be started or reached;
    ///   the daemon's refusal of the hello (or the broker's of the connection) otherwise.
    package static func connect(
        paths: DaemonPaths, hello: ClientMessage.Hello, startIfNeeded: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(SandboxError) -> DaemonConnection {
        if let variable = environment[AppEnvironment.daemonBrokerVariable] {
            guard let broker = CInt(variable), broker >= 0 else {
                throw SandboxError(
                    .invalidArgument,
                    "\(AppEnvironment.daemonBrokerVariable)='\(variable)' is not a descriptor number; the launcher of a confined app sets it."
                )
            }
            let fd = try await onEngine { () throws(SandboxError) in try DaemonBroker.requestConnection(from: broker) }
            return try await DaemonConnection.connect(descriptor: fd, hello: hello)
        }
        do {
            return try await DaemonConnection.connect(path: paths.socket, hello: hello)
        } catch  where error.code == .daemonUnavailable && startIfNeeded {
            // not running: start it below
        }
        try paths.prepare()
        let location = paths.location
        let fd = try await onEngine { () throws(SandboxError) in
            try DaemonRendezvous.connectStartingIfNeeded(location, environment: environment)
        }
        return try await DaemonConnection.connect(descriptor: fd, hello: hello)
    }

    /// Runs a blocking rendezvous step on the I/O engine's threads, never on the cooperative pool.
    private static func onEngine(
        _ body: @escaping @Sendable () throws(SandboxError) -> CInt
    ) async throws(SandboxError) -> CInt {
        do {
            return try await IOEngine.shared.run { try body() }
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.daemonUnavailable, "Reaching sandboxd failed: \(error).", underlying: .wrapping(error))
        }
    }
}
