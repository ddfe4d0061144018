import Foundation

extension DaemonStatus {
    /// Asks the running daemon for its status, without starting one.
    ///
    /// - Throws: `daemon-unavailable` when none runs for `paths`.
    public static func query(paths: DaemonPaths) async throws(SandboxError) -> DaemonStatus {
        let connection = try await DaemonConnection.connect(
            path: paths.socket, hello: ClientMessage.Hello(app: nil, session: nil, home: paths.home, attach: false))
        defer { connection.close() }
        guard let status = try await connection.request({ .status(id: $0) }).status else {
            throw SandboxError(.protocolViolation, "sandboxd answered a status request without its status.")
        }
        return status
    }
}
