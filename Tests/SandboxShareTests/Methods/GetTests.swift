import Foundation
import Testing

/// GET and HEAD against the running server: validators, conditional requests, byte ranges (small
/// files are read inline, large ones streamed: both paths), and the headers that keep a file from
/// running as a page of the server.
@Suite struct GetTests {
    static let small = String((0..<1000).map { Character(UnicodeScalar(UInt8(97 + $0 % 26))) })

    @Test(arguments: [false, true])
    func rangesSingleSuffixOpenEndedAndUnsatisfiable(large: Bool) async throws {
        try await ShareServerProcess.with { server in
            // 1,000 bytes inline, or 200 KiB streamed through the I/O engine.
            let text = large ? String(repeating: Self.small, count: 205) : Self.small
            let bytes = Array(text.utf8)
            let size = bytes.count
            try server.plant("file.txt", text)
            let cases: [(String, ClosedRange<Int>)] = [
                ("bytes=0-4", 0...4), ("bytes=-5", (size - 5)...(size - 1)), ("bytes=5-", 5...(size - 1)),
                ("bytes=990-5000000", 990...(size - 1)),
            ]
            for (header, expected) in cases {
                let response = try await server.send("GET", "/file.txt", headers: [("Range", header)])
                #expect(response.status == 206, "\(header): \(response)")
                #expect(response.body == Array(bytes[expected]), "\(header)")
                #expect(
                    response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)")
            }
            for header in ["bytes=\(size)-", "bytes=\(size + 10)-\(size + 20)", "bytes=-0"] {
                let response = try await server.send("GET", "/file.txt", headers: [("Range", header)])
                #expect(response.status == 416, "\(header): \(response)")
                #expect(response.header("Content-Range") == "bytes */\(size)")
            }
            // Invalid or multiple ranges: the whole file (RFC 9110 lets a server ignore Range).
            for header in ["bytes=a-b", "items=0-1", "bytes=0-1,5-6"] {
                let response = try await server.send("GET", "/file.txt", headers: [("Range", header)])
                #expect(response.status == 200 && response.body == bytes, "\(header): \(response.status)")
            }
            let whole = try await server.send("GET", "/file.txt")
            #expect(whole.status == 200 && whole.body == bytes)
            #expect(whole.header("Accept-Ranges") == "bytes")
        }
    }

    @Test func validatorsAndConditionalRequests() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "version 1")
            let first = try await server.send("GET", "/file.txt")
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"), "a strong ETag: \(etag)")

            let notModified = try await server.send("GET", "/file.txt", headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            #expect(notModified.header("ETag") == etag)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-None-Match", "\"other\"")]).status == 200)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-None-Match", "*")]).status == 304)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-Modified-Since", modified)]).status == 304)
            let early = "Thu, 01 Jan 1970 00:00:00 GMT"
            #expect(try await server.send("GET", "/file.txt", headers: [("If-Modified-Since", early)]).status == 200)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-Match", "\"other\"")]).status == 412)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-Unmodified-Since", early)]).status == 412)
            // If-Range with a stale validator: the whole file, not the range.
            let stale = try await server.send(
                "GET", "/file.txt", headers: [("Range", "bytes=0-1"), ("If-Range", "\"old\"")])
            #expect(stale.status == 200 && stale.text == "version 1")
            let fresh = try await server.send(
                "GET", "/file.txt", headers: [("Range", "bytes=0-1"), ("If-Range", etag)])
            #expect(fresh.status == 206 && fresh.text == "ve")

            // A PUT with a stale If-Match changes nothing.
            let put = try await server.send("PUT", "/file.txt", headers: [("If-Match", "\"other\"")], text: "version 2")
            #expect(put.status == 412)
            #expect(server.contents("file.txt") == "version 1")
            let replaced = try await server.send("PUT", "/file.txt", headers: [("If-Match", etag)], text: "version 2")
            #expect(replaced.status == 204)
            #expect(try await server.send("GET", "/file.txt", headers: [("If-None-Match", etag)]).status == 200)
        }
    }

    @Test func headIsGetWithoutTheBody() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", Self.small)
            let head = try await server.send("HEAD", "/file.txt")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == "1000")
            #expect(head.header("ETag") != nil && head.header("Last-Modified") != nil)
        }
    }

    @Test func filesNeverRunAsPagesOfTheServer() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("page.html", "<script>alert(1)</script>")
            try server.plant("notes.txt", "plain")
            let page = try await server.send("GET", "/page.html")
            #expect(page.header("Content-Security-Policy") == "sandbox")
            #expect(page.header("Content-Disposition")?.hasPrefix("attachment") == true)
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            let text = try await server.send("GET", "/notes.txt")
            #expect(text.header("Content-Security-Policy") == "sandbox")
            #expect(text.header("Content-Disposition") == nil)
        }
    }

    @Test func aCollectionIsListedWithPropfindNotGet() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("folder/inside.txt", "x")
            #expect(try await server.send("GET", "/folder/").status == 405)
            #expect(try await server.send("GET", "/missing.txt").status == 404)
        }
    }
}
