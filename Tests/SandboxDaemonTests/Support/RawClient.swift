import Foundation
import Glibc

/// A bare Unix-socket client that sends whatever bytes a test wants (malformed frames, lies about
/// lengths) and reads what the daemon answers until it closes, with a timeout. Blocking: call it
/// through ``onThread(_:)``.
struct RawClient {
    /// Connects to `path`, sends `bytes`, optionally half-closes, and returns the frames' bodies
    /// received before the daemon closed (or `timeout` passed).
    static func exchange(
        path: String, send bytes: [UInt8], closeWriting: Bool = false, timeout: Int = 10
    ) -> (bodies: [String], closed: Bool) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return ([], false) }
        defer { close(fd) }
        guard withAddress(path, { connect(fd, $0, $1) == 0 }) else { return ([], false) }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if closeWriting { shutdown(fd, Int32(SHUT_WR)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var closed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 {
                closed = true
                break
            }
            if count < 0 { break }  // the timeout, or a reset
            received += buffer[..<count]
        }
        return (takeBodies(from: &received), closed)
    }

    /// Calls `body` with the Unix socket address of `path` and its length.
    static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    /// The bodies of the whole frames at the start of `received`, taken off it.
    static func takeBodies(from received: inout [UInt8]) -> [String] {
        var bodies: [String] = []
        var offset = 0
        while received.count - offset >= 4 {
            let length = received[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard received.count - offset - 4 >= length else { break }
            bodies.append(String(decoding: received[offset + 4..<offset + 4 + length], as: UTF8.self))
            offset += 4 + length
        }
        received.removeFirst(offset)
        return bodies
    }

    /// A frame: 4-byte big-endian length, then `text`.
    static func frame(_ text: String) -> [UInt8] {
        let body = Array(text.utf8)
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }
}
