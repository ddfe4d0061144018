import Foundation
import Glibc
import SandboxCore
import SystemPackage

/// What a connection to `sandboxd` may act for: one app, and what its confinement allows. The
/// system says it — the launcher of a confined program (``DaemonBroker``), or an unconfined app
/// process for itself — never the confined program: it cannot open a connection of its own, and a
/// connection it is handed is bound before it gets it.
///
/// On the wire it is the first frame of a connection, `{"type":"bind","binding":{…}}`; the daemon
/// answers `{"type":"bound"}` (or a failure) and from then on refuses a hello for another app and
/// any second binding.
package struct AppBinding: Codable, Sendable, Hashable {
    /// The app identifier.
    package var app: String
    /// Whether the app may use the network (`sandbox run` without `--no-network`): the daemon
    /// refuses to download for an app that may not.
    package var allowsNetwork: Bool

    package init(app: String, allowsNetwork: Bool) {
        self.app = app
        self.allowsNetwork = allowsNetwork
    }

    /// The `type` of the binding frame and of its answer.
    package static let bindType = "bind"
    package static let boundType = "bound"

    private struct Frame: Codable {
        var type: String
        var binding: AppBinding?
        var code: String?
        var message: String?
    }

    /// The binding frame: a 4-byte big-endian length, then the JSON body.
    package func frame() throws(SandboxError) -> [UInt8] {
        let body: Data
        do {
            body = try JSONEncoder().encode(Frame(type: Self.bindType, binding: self))
        } catch {
            throw SandboxError(.invalidArgument, "The binding of '\(app)' could not be encoded: \(error).")
        }
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
            + Array(body)
    }

    /// Reads the daemon's answer to a binding frame from the blocking socket `fd`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/daemonRefused`` with the daemon's reason when it
    ///   refused; ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when the answer does not
    ///   come (the socket's timeouts bound the wait) or is not one.
    package static func readAnswer(from fd: CInt) throws(SandboxError) {
        let header = try readExactly(4, from: fd)
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= 64 << 10 else {
            throw SandboxError(.daemonUnavailable, "sandboxd answered a binding with a \(length)-byte frame.")
        }
        let body = try readExactly(length, from: fd)
        let answer: Frame
        do {
            answer = try JSONDecoder().decode(Frame.self, from: Data(body))
        } catch {
            throw SandboxError(.daemonUnavailable, "sandboxd's answer to a binding is not JSON: \(error).")
        }
        guard answer.type == boundType else {
            throw SandboxError(
                .daemonRefused,
                "sandboxd refused the connection: \(answer.message ?? answer.type) [\(answer.code ?? "no code")].")
        }
    }

    private static func readExactly(_ count: Int, from fd: CInt) throws(SandboxError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                recv(fd, buffer.baseAddress.map { $0 + filled }, count - filled, 0)
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw SandboxError(
                    .daemonUnavailable,
                    got == 0
                        ? "sandboxd closed the connection before answering its binding."
                        : "sandboxd did not answer a binding in time (\(Errno(rawValue: errno))).")
            }
            filled += got
        }
        return bytes
    }
}
