import Foundation
import Glibc
import SandboxTesting
import Testing

/// Oversized and hostile XML bodies, and connections that hold the server without sending.
///
/// Serialized, and run in a process of its own by `scripts/test`: its tests hold a server with
/// hundreds of connections and 100 MB bodies, loading the machine on purpose.
@Suite(.serialized) struct ResourceLimitTests {
    static let limit = 64 << 20
    /// The most memory one idle connection may cost the server.
    static let perConnectionLimit = 40 << 10

    /// A 100 MB PROPFIND body, announced with Content-Length and sent chunked: 413 once the
    /// server has read past its 1 MiB limit, with the server's memory staying low.
    ///
    /// What is held does not depend on how loaded the machine is: the client stops sending when
    /// the answer is readable, so what it got out is the server's 1 MiB plus what the kernel's
    /// socket buffers took (a few MiB on loopback) — under 32 MB, wherever the time went. The time
    /// bound only tells a refusal from a hang, measured on the sending thread.
    @Test(arguments: [false, true])
    func aHundredMegabyteXMLBodyIsRefusedPromptly(chunked: Bool) async throws {
        try await ShareServerProcess.with { server in
            let size = 100_000_000
            let framing = chunked ? ("Transfer-Encoding", "chunked") : ("Content-Length", "\(size)")
            let head = server.rawRequest(
                "PROPFIND", "/", headers: [("Depth", "1"), ("Content-Type", "application/xml"), framing], close: false)
            let port = server.port
            let (response, sent, elapsed) = try await onOwnThread { () throws -> (RawResponse?, Int, Duration) in
                let start = ContinuousClock.now
                let connection = try RawConnection(port: port, timeout: 30)
                defer { connection.close() }
                try connection.send(head)
                var piece = Array("<?xml version=\"1.0\"?><D:propfind xmlns:D=\"DAV:\"><D:prop>".utf8)
                piece += [UInt8](repeating: 0x20, count: (1 << 20) - piece.count)
                var sent = 0
                while sent < size {
                    if Self.isReadable(connection.descriptor) { break }
                    let frame =
                        chunked ? Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + [13, 10] : piece
                    do { try connection.send(frame) } catch { break }  // the server stopped reading: its answer follows
                    sent += piece.count
                }
                let response = try? connection.receiveResponse()  // reset without an answer: nil, reported below
                return (response, sent, ContinuousClock.now - start)
            }
            #expect(
                response?.status == 413, "PROPFIND with 100 MB (chunked: \(chunked)): \(String(describing: response))")
            #expect(sent < 32_000_000, "the client got \(sent) bytes out before the server's 413")
            #expect(elapsed < .seconds(30), "413 after \(elapsed)")
            let peak = try server.peakResidentBytes()
            #expect(peak < Self.limit, "server peak RSS \(peak >> 20) MiB")
            let after = try await server.send("PROPFIND", "/", headers: [("Depth", "0")])
            #expect(after.status == 207, "the server still answers: \(after)")
        }
    }

    static func isReadable(_ descriptor: Int32) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    static let hostileBodies: [(String, String)] = [
        (
            "billion laughs",
            """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
            <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
            <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
            <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
            <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
            <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>
            <D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&lol9;</D:displayname></D:prop></D:propfind>
            """
        ),
        (
            "external entity",
            """
            <?xml version="1.0"?>
            <!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><Z:leak xmlns:Z="urn:x">&xxe;</Z:leak></D:prop></D:set>
            </D:propertyupdate>
            """
        ),
        (
            "external DTD",
            """
            <?xml version="1.0"?>
            <!DOCTYPE D:propfind SYSTEM "file:///etc/passwd">
            <D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>
            """
        ),
        (
            "parameter entity",
            """
            <?xml version="1.0"?>
            <!DOCTYPE d [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>
            <D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>
            """
        ),
    ]

    @Test func xmlWithADoctypeIsRefused() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "text")
            for (name, body) in Self.hostileBodies {
                for method in ["PROPFIND", "PROPPATCH", "LOCK"] {
                    let response = try await server.send(
                        method, "/file.txt", headers: [("Content-Type", "application/xml"), ("Depth", "0")], text: body)
                    #expect(response.status == 400, "\(method) with \(name): \(response)")
                    #expect(!response.text.contains("root:x:0:0"), "\(method) with \(name) leaked /etc/passwd")
                }
            }
            let properties = try await server.send(
                "PROPFIND", "/file.txt", headers: [("Depth", "0")],
                text: """
                    <?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>
                    """)
            #expect(!properties.text.contains("root:x:0:0") && !properties.text.contains("lollol"))
            let peak = try server.peakResidentBytes()
            #expect(peak < Self.limit, "server peak RSS \(peak >> 20) MiB")
        }
    }

    /// 1,000 connections that send nothing, or half a head, while a well-behaved client still
    /// gets its answer within a few seconds — timed on the client's own thread, from connecting to
    /// the last byte (awaiting the answer would add the wait for a thread of the test process's
    /// cooperative pool, which the other suites keep busy: 23 s seen).
    @Test(.timeLimit(.minutes(3)))
    func slowClientsDoNotStarveAWellBehavedOne() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "served")
            let port = server.port
            let before = try server.peakResidentBytes()
            let idle = try await onOwnThread { () throws -> [RawConnection] in
                try (0..<1000).map { index in
                    let connection = try RawConnection(port: port, timeout: 5)
                    if index % 2 == 1 { try connection.send("GET /file.txt HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n") }
                    return connection
                }
            }
            let request = server.rawRequest("GET", "/file.txt")
            for attempt in 0..<3 {
                let (response, elapsed) = try await onOwnThread { () throws -> (RawResponse, Duration) in
                    let start = ContinuousClock.now
                    let connection = try RawConnection(port: port, timeout: 30)
                    defer { connection.close() }
                    try connection.send(request)
                    return (try connection.receiveResponse(), ContinuousClock.now - start)
                }
                #expect(
                    response.status == 200 && response.text == "served", "GET \(attempt) among 1,000 idle: \(response)")
                // 0.9 s alone; 7–9 s in the share target's full run, whose 78 suites load the
                // machine themselves. A starved client is never answered (the 30 s timeout).
                #expect(elapsed < .seconds(15), "GET \(attempt) among 1,000 idle connections took \(elapsed)")
            }
            for connection in idle { connection.close() }
            // Each open connection costs some memory (a channel, its buffers, a task): bounded per
            // connection rather than by the transfers' 64 MiB, which a debug build's larger
            // baseline plus 1,000 connections can pass without anything being wrong.
            let growth = try server.peakResidentBytes() - before
            #expect(growth < Self.perConnectionLimit * 1000, "1,000 idle connections took \(growth >> 20) MiB")
        }
    }
}
