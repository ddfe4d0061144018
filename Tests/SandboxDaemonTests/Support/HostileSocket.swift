import Foundation
import Glibc

/// A connection to `sandboxd` that a test holds open and writes to without ever blocking (bytes
/// the socket's buffer cannot take are dropped, as a client that stalls would), to play a hostile
/// client: half frames, no hello, answers never read. Its calls never block, so they may run on
/// the cooperative pool.
final class HostileSocket: Sendable {
    let fd: Int32

    /// Connects to `path`; `nil` when the connection itself fails.
    init?(path: String) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard RawClient.withAddress(path, { connect(fd, $0, $1) == 0 }) else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends what the socket's buffer takes of `bytes` now; returns how many it took.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { break }
            sent += count
        }
        return sent
    }

    /// Whether the daemon has closed the connection: `POLLHUP` (a Unix socket's peer closed its
    /// end) or `POLLERR`, whether or not an error frame waits unread.
    var isClosedByPeer: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLHUP | POLLERR) != 0
    }
}

/// The memory of a process, from `/proc/PID/status`.
struct ProcessMemory {
    /// The peak resident set size (`VmHWM`), in bytes.
    var peak: Int
    /// The resident set size now (`VmRSS`), in bytes.
    var resident: Int

    init?(pid: pid_t) {
        // Unreadable: the process is gone.
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func kibibytes(_ key: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces).dropLast(3)) }
        }
        guard let peak = kibibytes("VmHWM"), let resident = kibibytes("VmRSS") else { return nil }
        self.peak = peak << 10
        self.resident = resident << 10
    }
}

extension HostileSocket {
    /// Whether bytes wait to be read (the daemon answered).
    var hasAnswer: Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0 && descriptor.revents & Int16(POLLIN) != 0
    }

    /// Sends `bytes` to each of `sockets` as their buffers take them, until each has taken all of
    /// them or was closed by the daemon, or `timeout` passed. Blocking: call it through
    /// ``onThread(_:)``.
    static func push(_ bytes: [UInt8], to sockets: [HostileSocket], timeout: Duration = .seconds(60)) {
        var offsets = [Int](repeating: 0, count: sockets.count)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var pending = false
            for (index, socket) in sockets.enumerated() where offsets[index] < bytes.count && !socket.isClosedByPeer {
                offsets[index] += socket.send(Array(bytes[offsets[index]...]))
                pending = pending || offsets[index] < bytes.count
            }
            guard pending else { return }
            var descriptors = sockets.enumerated().filter { offsets[$0.offset] < bytes.count }
                .map { pollfd(fd: $0.element.fd, events: Int16(POLLOUT), revents: 0) }
            _ = poll(&descriptors, nfds_t(descriptors.count), 100)  // writable, closed, or 0.1 s
        }
    }
}
