import Foundation
import Glibc
import SandboxTesting

/// `scripts/delay-proxy.py` in front of the Ceph gateway: each chunk forwarded in either direction
/// is held 20 ms (a 40 ms round trip), the bytes untouched — latency for real, as this kernel has no
/// `sch_netem`. The benchmark starts the same script.
struct DelayProxy: Sendable {
    let program: RunningProgram
    /// The gateway's environment with `S3_ENDPOINT` pointing at the proxy.
    let environment: [String: String]
    /// Where the proxy appends a line for each connection it accepts.
    let connectionLog: String

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/delay-proxy.py")
            .path
    }

    /// Starts the proxy in front of `gateway`, its output in `scratch`; stop it with ``stop()``.
    static func start(before front: CephGateway, scratch: String, delay: Double = 0.02) async throws -> DelayProxy {
        guard let endpoint = front.environment["S3_ENDPOINT"], endpoint.hasPrefix("http://") else {
            throw TestFailure("the gateway has no http:// S3_ENDPOINT: \(front.environment)")
        }
        let upstream = String(endpoint.dropFirst("http://".count).prefix { $0 != "/" })
        let log = scratch + "/proxy-connections-\(UUID().uuidString)"
        let program = try BuiltProgram(path: "/usr/bin/python3").start(
            [script, upstream, "--delay", String(delay), "--log", log], outputIn: scratch)
        var port: String?
        let listening = await eventually(timeout: .seconds(30)) {
            port = (try? program.standardOutput())?.split(separator: "\n").first { $0.hasPrefix("PROXY_PORT=") }
                .map { String($0.dropFirst("PROXY_PORT=".count)) }
            return port != nil || !program.isRunning
        }
        guard listening, let port else {
            program.signal(SIGKILL)
            throw TestFailure("delay-proxy.py did not start: \((try? program.standardError()) ?? "")")
        }
        var environment = front.environment
        environment["S3_ENDPOINT"] = "http://127.0.0.1:\(port)"
        return DelayProxy(program: program, environment: environment, connectionLog: log)
    }

    /// How many connections the proxy has accepted so far.
    func connectionsAccepted() -> Int {
        ((try? String(contentsOfFile: connectionLog, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// Stops the proxy (SIGTERM; SIGKILL when it has not ended 10 s later).
    func stop() async {
        program.signal(SIGTERM)
        _ = await program.exit(timeout: .seconds(10))
    }
}
