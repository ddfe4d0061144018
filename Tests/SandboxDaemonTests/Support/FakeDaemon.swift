import Foundation
import Glibc
import SandboxTransfer

/// A stand-in for `sandboxd` on a Unix socket, saying whatever a test wants: it answers one
/// client's hello with a welcome, sends `messages`, then reads what the client sends until it
/// closes (or a minute passes). Blocking: call ``serve(_:)`` through ``onThread(_:)``.
struct FakeDaemon: Sendable {
    let socketPath: String
    private let listener: CInt

    /// Listens on `socketPath`.
    init(socketPath: String) throws {
        self.socketPath = socketPath
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw TestSocketError("socket", errno) }
        let listener = listener
        guard RawClient.withAddress(socketPath, { bind(listener, $0, $1) == 0 }), listen(listener, 1) == 0 else {
            close(listener)
            throw TestSocketError("bind/listen", errno)
        }
    }

    /// Serves one client; returns the bodies of the frames it sent (its hello first).
    func serve(_ messages: [DaemonMessage]) -> [String] {
        defer { close(listener) }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return [] }
        defer { close(client) }
        var time = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var bodies: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var answered = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }  // closed, the timeout, or a reset
            received += buffer[..<count]
            bodies += RawClient.takeBodies(from: &received)
            if !answered && !bodies.isEmpty {
                answered = true
                for message in [DaemonMessage.welcome(pid: getpid())] + messages {
                    // The test's own messages: one that cannot be encoded ends the exchange.
                    guard let frame = try? WireCoding.encode(message) else { return bodies }
                    _ = frame.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
            }
        }
        return bodies
    }
}

struct TestSocketError: Error {
    let description: String
    init(_ call: String, _ code: Int32) { description = "\(call): \(String(cString: strerror(code)))" }
}
