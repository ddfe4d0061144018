import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// The daemon's sessions share one HTTP client: two sessions downloading from one server leave at
/// most one idle keep-alive connection in one pool, not one pool (and connection) per session kept
/// until the daemon exits (~2.8 MiB a session hosted).
@Suite(.serialized) struct SharedClientTests {
    @Test func sessionsShareOneConnectionPool() async throws {
        let server = try await NginxServer.start()
        try server.serve(TestData.bytes(50_000, seed: 31), as: "a.bin")
        try server.serve(TestData.bytes(60_000, seed: 32), as: "b.bin")
        let port = try #require(URL(string: server.url("/files/a.bin"))?.port)
        try await DaemonFixture.with { fixture in
            for (session, file) in [("one", "a.bin"), ("two", "b.bin")] {
                let output = try await fixture.runApp(
                    session, ["submit", server.url("/files/\(file)"), "--exit-after", "1"])
                #expect(output.status == 0, "\(output.output.stdout)")
            }
            let daemon = try #require(fixture.daemonPIDs().first)
            // One pool keeps at most one idle connection to the server; a pool per session kept
            // two. (None is left in some runs: the connection closed after its response.)
            let connections = Self.connections(of: daemon, toPort: port)
            #expect(connections <= 1, "\(connections) connections: one pool per session")
        }
        await server.stop()
    }

    /// The established TCP connections `pid` has to `port`.
    private static func connections(of pid: pid_t, toPort port: Int) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []  // gone: none
        let sockets = Set(
            descriptors.compactMap { descriptor -> String? in
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(pid)/fd/\(descriptor)"),
                    target.hasPrefix("socket:[")
                else { return nil }  // not a socket
                return String(target.dropFirst("socket:[".count).dropLast())
            })
        let remotePort = String(format: ":%04X", port)
        var count = 0
        for table in ["tcp", "tcp6"] {
            // A table that cannot be read (no IPv6) lists no connection.
            let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 9, fields[2].hasSuffix(remotePort), fields[3] == "01" else { continue }
                if sockets.contains(String(fields[9])) { count += 1 }
            }
        }
        return count
    }
}
