import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Synchronization
import Testing

/// The event loop's own answers to small reads (``ImmediateReadHandler``) on the wire, from a real
/// `sandbox share`: byte for byte Hummingbird's (a second server in the same home, with
/// `SANDBOX_SHARE_IMMEDIATE=off`), in order on a kept-alive, pipelined connection.
@Suite struct ImmediateWireTests {
    static let small = String(repeating: "0123456789", count: 500)
    static let large = String(repeating: "x", count: 70_000)

    /// Every header but `Date`, in order, and the rest of the response.
    static func comparable(_ response: RawResponse) -> String {
        let headers = response.headers.filter { $0.name.lowercased() != "date" }.map { "\($0.name): \($0.value)" }
        return "\(response.status)\n\(headers.joined(separator: "\n"))\n\(response.text)"
    }

    @Test func theSameAnswersAsHummingbirds() async throws {
        try await ShareServerProcess.with { fast in
            try fast.plant("a.txt", Self.small)
            try fast.plant("large.bin", Self.large)
            try fast.plant(".hidden", "hidden")
            try fast.plant("folder/inside.txt", "inside")
            symlink(fast.documents + "/a.txt", fast.documents("link.txt"))
            let slow = try await ShareServerProcess.alongside(fast, environment: ["SANDBOX_SHARE_IMMEDIATE": "off"])
            var failure: (any Error)?
            do {
                let etag = try await fast.send("GET", "/a.txt").header("ETag") ?? ""
                let wrong = Credentials.header(ShareServerProcess.basic(user: "sandbox", password: "wrong"))
                let requests: [(String, String, [(String, String)], Credentials)] = [
                    ("GET", "/a.txt", [], .valid), ("HEAD", "/a.txt", [], .valid),
                    ("GET", "/a.txt", [("If-None-Match", etag)], .valid),
                    ("GET", "/a.txt", [("Range", "bytes=5-9")], .valid),
                    ("GET", "/large.bin", [], .valid), ("HEAD", "/large.bin", [], .valid),
                    ("GET", "/.hidden", [], .valid), ("GET", "/Inbox/", [], .valid), ("GET", "/link.txt", [], .valid),
                    ("GET", "/folder", [], .valid), ("GET", "/missing", [], .valid),
                    ("GET", "/a.txt", [], .none), ("GET", "/a.txt", [], wrong),
                ]
                for (method, target, headers, credentials) in requests {
                    let one = try await fast.send(method, target, headers: headers, credentials: credentials)
                    let other = try await slow.send(method, target, headers: headers, credentials: credentials)
                    #expect(Self.comparable(one) == Self.comparable(other), "\(method) \(target) \(headers)")
                    #expect(one.header("Date") != nil)
                }
                // A restore in progress (the coordination): reads go on, the same on both.
                let seen = Mutex<[String]>([])
                let restored = try await ContainerOperations(fast).restore(.files(["restored.txt": "restored"])) {
                    let answers = [fast, slow].map { server in
                        (try? server.sendNow("GET", "/a.txt")).map(Self.comparable) ?? "none"
                    }
                    seen.withLock { $0 = answers }
                }
                #expect(restored == nil, "\(String(describing: restored))")
                let answers = seen.withLock { $0 }
                #expect(answers.count == 2 && answers.first == answers.last && answers.first?.hasPrefix("200") == true)
                #expect(fast.log().contains("127.0.0.1 GET /a.txt 200 5000 "), "\(fast.log().suffix(2000))")
            } catch {
                failure = error
            }
            try await slow.stop()
            if let failure { throw failure }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnAKeptAliveConnection() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("a.txt", Self.small)
            try server.plant("large.bin", Self.large)
            let requests =
                server.rawRequest("GET", "/a.txt", close: false)
                + server.rawRequest("GET", "/large.bin", close: false)
                + server.rawRequest("PUT", "/new.txt", body: Array("new".utf8), close: false)
                + server.rawRequest("GET", "/a.txt", close: false)
                + server.rawRequest("HEAD", "/a.txt", close: false)
                + server.rawRequest("GET", "/new.txt", close: false)
                + server.rawRequest("GET", "/.hidden", close: false)
                + server.rawRequest("GET", "/a.txt", close: true)
            let port = server.port
            let (answers, ended) = try await onOwnThread { () throws -> ([String], Bool) in
                let connection = try RawConnection(port: port)
                defer { connection.close() }
                try connection.send(requests)
                var buffer: [UInt8] = []
                var answers: [String] = []
                let heads = [false, false, false, false, true, false, false, false]
                while answers.count < heads.count {
                    if let response = RawResponse.complete(in: &buffer, toHead: heads[answers.count]) {
                        answers.append("\(response.status) \(response.body.count)")
                        continue
                    }
                    let piece = try connection.receive()
                    guard !piece.isEmpty else { break }
                    buffer += piece
                }
                let rest = try connection.receive()
                return (answers, buffer.isEmpty && rest.isEmpty)
            }
            let missing = "Nothing is shared at '/.hidden'.\n".utf8.count
            #expect(
                answers == [
                    "200 5000", "200 70000", "201 0", "200 5000", "200 0", "200 3", "404 \(missing)", "200 5000",
                ])
            #expect(ended, "the connection closes after the request that asked for it")
            // Many requests on one kept-alive connection, each answered.
            let count = try await onOwnThread { () throws -> Int in
                let connection = try RawConnection(port: port)
                defer { connection.close() }
                var answered = 0
                for _ in 0..<200 {
                    try connection.send(server.rawRequest("GET", "/a.txt", close: false))
                    if try connection.receiveResponse().status == 200 { answered += 1 }
                }
                return answered
            }
            #expect(count == 200)
        }
    }
}
