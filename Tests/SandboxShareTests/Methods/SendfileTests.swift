import Foundation
import Glibc
import SandboxTesting
import Testing

/// A plain file on a plain-HTTP connection is sent with `sendfile` (FileRegionSender): the same
/// bytes as the chunked path sends (whole, ranges, the last byte, nothing), from the descriptor
/// that was opened and checked; a file that shrinks while it is sent cuts the connection short
/// instead of leaving NIO retrying; and many downloads hold no buffers in the share's memory
/// (with `SANDBOX_SHARE_SENDFILE=off` they do: the chunked path, the benchmarks' "before").
@Suite struct SendfileTests {
    /// The bytes of a file of `size` bytes: seeded noise, so a misplaced piece shows.
    static func noise(_ size: Int, seed: UInt64 = 7) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 8)
        while bytes.count < size { withUnsafeBytes(of: generator.next()) { bytes += $0 } }
        return Array(bytes.prefix(size))
    }

    @Test func wholeFileRangesLastByteAndEmptyFile() async throws {
        try await ShareServerProcess.with { server in
            // Larger than the inline limit (64 KiB) and not a multiple of a chunk (1 MiB).
            let bytes = Self.noise((3 << 20) + 12345)
            let size = bytes.count
            try Data(bytes).write(to: URL(fileURLWithPath: server.documents("large.bin")))
            let whole = try await server.send("GET", "/large.bin")
            #expect(whole.status == 200 && whole.header("Content-Length") == String(size))
            #expect(whole.body == bytes)
            let cases: [(String, ClosedRange<Int>)] = [
                ("bytes=100000-", 100_000...(size - 1)),  // to the last byte
                ("bytes=-200000", (size - 200_000)...(size - 1)),  // the last 200,000 bytes
                ("bytes=1000-1500999", 1000...1_500_999),  // within the file, across a chunk's end
                ("bytes=0-\(size + 5000)", 0...(size - 1)),  // past the end: to the last byte
            ]
            for (header, expected) in cases {
                let response = try await server.send("GET", "/large.bin", headers: [("Range", header)])
                #expect(response.status == 206, "\(header): \(response.status)")
                #expect(response.body == Array(bytes[expected]), "\(header)")
                #expect(
                    response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)")
            }
            try Data().write(to: URL(fileURLWithPath: server.documents("empty.bin")))
            let empty = try await server.send("GET", "/empty.bin")
            #expect(empty.status == 200 && empty.header("Content-Length") == "0" && empty.body.isEmpty)
            // The connection still serves after each of those.
            #expect(
                try await server.send("GET", "/large.bin", headers: [("Range", "bytes=-1")]).body == [bytes[size - 1]])
        }
    }

    @Test func fileShrinkingWhileSentCutsTheConnectionShort() async throws {
        try await ShareServerProcess.with { server in
            let path = server.documents("shrinks.bin")
            let size = 64 << 20
            try LargeFile.write(path, size: size)
            let request = server.rawRequest("GET", "/shrinks.bin")
            let port = server.port
            let received = try await onOwnThread { () throws -> Int in
                let connection = try RawConnection(port: port, timeout: 30)
                defer { connection.close() }
                try connection.send(request)
                let (head, start) = try connection.receiveHead()
                guard head.status == 200 else { throw TestFailure("GET: \(head)") }
                var received = start.count
                while received < 1 << 20 { received += try connection.receive().count }
                // The server has sent past 2 MiB (the socket buffers hold more than 1 MiB).
                guard truncate(path, 2 << 20) == 0 else { throw TestFailure("truncate: \(errno)") }
                // Until the server closes: a timeout (30 s) or a reset throws.
                while true {
                    let piece = try connection.receive(limit: 1 << 20)
                    if piece.isEmpty { return received }
                    received += piece.count
                }
            }
            #expect(received < size, "the body was cut short: \(received) of \(size) bytes")
            let after = try await server.send("GET", "/shrinks.bin", headers: [("Range", "bytes=0-99999")])
            #expect(after.status == 206 && after.body.count == 100_000)
        }
    }

    @Test func fileReplacedBySymlinkWhileSentSendsTheOpenedFile() async throws {
        try await ShareServerProcess.with { server in
            let bytes = Self.noise(16 << 20)
            let path = server.documents("swapped.bin")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            try Data(Self.noise(16 << 20, seed: 8)).write(to: URL(fileURLWithPath: server.documents("other.bin")))
            let request = server.rawRequest("GET", "/swapped.bin")
            let port = server.port
            let body = try await onOwnThread { () throws -> [UInt8] in
                let connection = try RawConnection(port: port, timeout: 30)
                defer { connection.close() }
                try connection.send(request)
                let (head, start) = try connection.receiveHead()
                guard head.status == 200 else { throw TestFailure("GET: \(head)") }
                // The path now leads, through a link, to the other file.
                let link = path + ".link"
                guard symlink("other.bin", link) == 0, rename(link, path) == 0 else {
                    throw TestFailure("replace with a symlink: \(errno)")
                }
                var body = start
                while body.count < bytes.count {
                    let piece = try connection.receive(limit: 1 << 20)
                    guard !piece.isEmpty else { break }
                    body += piece
                }
                return body
            }
            #expect(body.count == bytes.count)
            #expect(body == bytes, "the bytes of the file that was opened, not the link's")
        }
    }

    /// 24 downloads whose clients read their response's head and first bytes, then stop reading:
    /// the share's resident memory grows by less than 8 MiB. Read in 1 MiB chunks, each would
    /// hold one or two chunks (24 to 48 MiB) until its client reads again.
    @Test func manyStalledDownloadsHoldNoBuffers() async throws {
        try await ShareServerProcess.with { server in
            try LargeFile.write(server.documents("large.bin"), size: 32 << 20)
            let grown = try await Self.growthUnderStalledDownloads(of: server)
            #expect(grown < 8 << 20, "24 stalled downloads grew the share by \(grown >> 10) KiB")
        }
    }

    /// `SANDBOX_SHARE_SENDFILE=off` (the benchmarks' "before") sends the same bytes in chunks
    /// (``FileBody``), which the memory shows: 24 stalled downloads hold a chunk or more each.
    @Test func switchedOffSendsTheSameBytesInChunks() async throws {
        try await ShareServerProcess.with { server in
            let bytes = Self.noise((2 << 20) + 777)
            try Data(bytes).write(to: URL(fileURLWithPath: server.documents("noise.bin")))
            try LargeFile.write(server.documents("large.bin"), size: 32 << 20)
            let chunked = try await ShareServerProcess.alongside(server, environment: ["SANDBOX_SHARE_SENDFILE": "off"])
            var failure: (any Error)?
            do {
                for range in [nil, "bytes=1000-1500999"] {
                    let headers = range.map { [("Range", $0)] } ?? []
                    let sent = try await server.send("GET", "/noise.bin", headers: headers)
                    let read = try await chunked.send("GET", "/noise.bin", headers: headers)
                    #expect(read.status == sent.status && read.body == sent.body, "\(range ?? "whole")")
                    #expect(read.header("Content-Length") == sent.header("Content-Length"))
                }
                let grown = try await Self.growthUnderStalledDownloads(of: chunked)
                #expect(grown >= 12 << 20, "24 stalled chunked downloads grew the share by only \(grown >> 10) KiB")
            } catch {
                failure = error
            }
            try await chunked.stop()
            if let failure { throw failure }
        }
    }

    /// How much `server`'s resident memory grows while 24 clients of `/large.bin` (32 MiB) have
    /// read their response's head and first bytes and then stopped reading.
    static func growthUnderStalledDownloads(of server: ShareServerProcess) async throws -> Int {
        #expect(try await server.send("GET", "/large.bin", headers: [("Range", "bytes=0-99")]).status == 206)
        let before = try server.residentBytes()
        let request = server.rawRequest("GET", "/large.bin")
        let port = server.port
        let connections = try await onOwnThread { () throws -> [RawConnection] in
            var connections: [RawConnection] = []
            for _ in 0..<24 {
                let connection = try RawConnection(port: port, timeout: 30)
                connections.append(connection)
                try connection.send(request)
                let (head, start) = try connection.receiveHead()
                guard head.status == 200 else { throw TestFailure("GET: \(head)") }
                if start.isEmpty { _ = try connection.receive() }
            }
            return connections
        }
        let after = try server.residentBytes()
        for connection in connections { connection.close(abortively: true) }
        #expect(try await server.send("GET", "/large.bin", headers: [("Range", "bytes=-10")]).body.count == 10)
        return after - before
    }
}

extension RawConnection {
    /// The response's head, and the body bytes that came with it.
    ///
    /// - Throws: ``TestFailure`` on a timeout, a reset, or a stream that ends before a head.
    fileprivate func receiveHead() throws -> (RawResponse, [UInt8]) {
        var buffer: [UInt8] = []
        while true {
            if let head = RawResponse.complete(in: &buffer, toHead: true) { return (head, buffer) }
            let piece = try receive()
            guard !piece.isEmpty else { throw TestFailure("the stream ended after \(buffer.count) bytes, no head") }
            buffer += piece
        }
    }
}
