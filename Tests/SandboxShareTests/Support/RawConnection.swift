import Foundation
import Glibc
import SandboxTesting
import Synchronization

/// Runs `body` on a thread of its own and returns its result: blocking socket calls never hold one
/// of the cooperative pool's threads (two on CI).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// A blocking TCP connection to a loopback port that sends exactly the bytes it is given: what
/// curl would normalise (`..`, `%2e`, a backslash) reaches the server as written. Use it only on
/// a thread of its own (``onOwnThread(_:)``).
final class RawConnection: Sendable {
    let descriptor: Int32
    private let isClosed = Atomic(false)

    /// Connects to `127.0.0.1:port`, from `source` when given (another loopback address, such as
    /// `127.0.0.2`, is another client to the server); every send and receive gives up after
    /// `timeout` seconds.
    ///
    /// - Throws: ``TestFailure`` when the connection cannot be made.
    init(port: Int, timeout: Int = 30, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            try Self.call(bind, descriptor, address: source, port: 0, what: "bind to \(source)")
        }
        try Self.call(connect, descriptor, address: "127.0.0.1", port: port, what: "connect to 127.0.0.1:\(port)")
    }

    /// `bind` or `connect` of `descriptor` to `address:port`; closes it and throws on failure.
    private static func call(
        _ function: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ descriptor: Int32, address: String,
        port: Int, what: String
    ) throws {
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = inet_addr(address)
        socketAddress.sin_port = UInt16(port).bigEndian
        let succeeded = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                function(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard succeeded else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestFailure("\(what): \(reason)")
        }
    }

    /// Sends every byte of `bytes`.
    ///
    /// - Throws: ``TestFailure`` when the peer closed the connection or the send timed out.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw TestFailure("send: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Up to `limit` bytes as they arrive; empty at the end of the stream.
    ///
    /// - Throws: ``TestFailure`` on a timeout or a reset.
    func receive(limit: Int = 65536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, limit, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TestFailure("recv: \(String(cString: strerror(errno)))") }
            return Array(buffer.prefix(count))
        }
    }

    /// Everything received until it contains `marker` (for a stream that stays open, such as
    /// Server-Sent Events), as text.
    ///
    /// - Throws: ``TestFailure`` on a timeout, a reset, or the end of the stream first.
    func receive(until marker: String) throws -> String {
        var received: [UInt8] = []
        while !String(decoding: received, as: UTF8.self).contains(marker) {
            let piece = try receive()
            guard !piece.isEmpty else {
                throw TestFailure("the stream ended before '\(marker)': \(String(decoding: received, as: UTF8.self))")
            }
            received += piece
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads one response (a `1xx` interim one is skipped), its body framed by `Content-Length`,
    /// chunked encoding, or the end of the stream; `HEAD` responses have none.
    ///
    /// - Throws: ``TestFailure`` on a timeout, a reset, or a stream that ends before a head.
    func receiveResponse(toHead: Bool = false) throws -> RawResponse {
        var buffer: [UInt8] = []
        while true {
            if let response = RawResponse.complete(in: &buffer, toHead: toHead) { return response }
            let piece = try receive()
            guard !piece.isEmpty else {
                guard let response = RawResponse.atEndOfStream(buffer) else {
                    throw TestFailure("the server closed the connection after \(buffer.count) bytes, no response")
                }
                return response
            }
            buffer += piece
        }
    }

    /// Closes the connection; an `RST` instead of a `FIN` when `abortively`.
    func close(abortively: Bool = false) {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        if abortively {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        Glibc.close(descriptor)
    }

    deinit { close() }
}
