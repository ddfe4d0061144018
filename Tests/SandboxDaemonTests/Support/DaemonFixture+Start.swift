import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer

extension DaemonFixture {
    /// Starts `sandboxd` for this fixture with `options` and waits until it answers; it logs to
    /// ``paths``' log.
    func startDaemon(_ options: [String] = []) async throws -> RunningProgram {
        let daemon = try BuiltProgram("sandboxd").start(
            ["--home", home.location, "--runtime-directory", paths.runtimeDirectory, "--detach"] + options,
            environment: environment(idleExit: 600), outputIn: scratch.path)
        let paths = paths
        let answers = await eventuallyAsync {
            do {
                _ = try await DaemonStatus.query(paths: paths)
                return true
            } catch {
                return false
            }
        }
        guard answers else { throw TestFailure("sandboxd did not answer within 30 s") }
        return daemon
    }

    /// The daemon's log so far.
    func daemonLog() -> String {
        (try? String(contentsOfFile: paths.log, encoding: .utf8)) ?? ""  // none yet: empty
    }

    /// A hello frame: `app` and `session` when given, attached or not.
    func helloFrame(app: String? = nil, session: String? = nil, attach: Bool = false) -> [UInt8] {
        var hello: [String: Any] = ["home": home.location, "attach": attach]
        hello["app"] = app
        hello["session"] = session
        let message: [String: Any] = ["type": "hello", "protocolVersion": BackgroundProtocol.version, "hello": hello]
        let body = (try? JSONSerialization.data(withJSONObject: message)) ?? Data()  // plain values: cannot fail
        return RawClient.frame(String(decoding: body, as: UTF8.self))
    }
}
