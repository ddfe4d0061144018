import Foundation
import SandboxStore
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Data tasks against the real nginx (and the fault server for a body without `Content-Length`).
@Suite struct DataTaskTests {
    let payload = TestData.bytes(3_000_000, seed: 13)

    func withNginx(_ body: (NginxServer, DataSession) async throws -> Void) async throws {
        let nginx = try await NginxServer.start()
        let session = DataSession(configuration: Fixture.noRetries)
        do {
            try nginx.serve(payload, as: "payload.bin")
            try await body(nginx, session)
        } catch {
            await session.invalidate()
            await nginx.stop()  // `error` propagates
            throw error
        }
        await session.invalidate()
        await nginx.stop()
    }

    func request(_ url: String, maximumSize: Int64 = DataRequest.defaultMaximumSize) throws -> DataRequest {
        DataRequest(url: try #require(URL(string: url)), maximumSize: maximumSize)
    }

    @Test func fetchReturnsTheBodyStatusHeadersAndFinalURL() async throws {
        try await withNginx { nginx, session in
            let fetched = try await session.fetch(request(nginx.url("/redirect/2")))
            #expect(fetched.body == Data(payload))
            #expect(fetched.response.status == 200 && fetched.response.isSuccess)
            #expect(fetched.response.url.absoluteString == nginx.url("/files/payload.bin"))
            #expect(fetched.response.expectedContentLength == Int64(payload.count))
            #expect(fetched.response.value(forHeader: "CONTENT-LENGTH") == "\(payload.count)")
            let missing = try await session.fetch(request(nginx.url("/files/missing")))
            #expect(missing.response.status == 404 && !missing.response.isSuccess)
        }
    }

    @Test func anAnnouncedBodyOverTheLimitFailsBeforeItIsRead() async throws {
        try await withNginx { nginx, session in
            let exact = try await session.fetch(request(nginx.url("/files/payload.bin"), maximumSize: 3_000_000))
            #expect(exact.body.count == 3_000_000)
            let error = try await #require(throws: SandboxError.self) {
                try await session.fetch(request(nginx.url("/files/payload.bin"), maximumSize: 2_999_999))
            }
            #expect(error.code == .tooLarge)
            #expect(error.message.contains("announces 3000000 bytes") && error.message.contains("2999999"))
            // the stream refuses it the same way, before handing over a body
            let streamed = await #expect(throws: SandboxError.self) {
                try await session.bytes(for: request(nginx.url("/files/payload.bin"), maximumSize: 1024))
            }
            #expect(streamed?.code == .tooLarge)
        }
    }

    @Test func anUnannouncedBodyOverTheLimitFailsOnceItPassesIt() async throws {
        try await withFaultServer { server in
            var resource = FaultResource(body: payload)
            resource.sendsContentLength = false
            resource.chunkSize = 16_384
            server.set("/chunked", resource)
            let session = DataSession(configuration: Fixture.noRetries)
            let url = try #require(URL(string: server.url("/chunked")))
            let whole = try await session.fetch(DataRequest(url: url, maximumSize: Int64(payload.count)))
            #expect(whole.response.expectedContentLength == nil)
            #expect(whole.body == Data(payload))
            let error = await #expect(throws: SandboxError.self) {
                try await session.fetch(DataRequest(url: url, maximumSize: 100_000))
            }
            #expect(error?.code == .tooLarge)
            #expect(error?.message.contains("runs past it") == true)
            // the stream hands over the chunks within the limit, then fails: never more than the limit
            let streamed = try await session.bytes(for: DataRequest(url: url, maximumSize: 100_000))
            var received = 0
            let streamError = await #expect(throws: SandboxError.self) {
                for try await chunk in streamed.body { received += chunk.count }
            }
            #expect(streamError?.code == .tooLarge)
            #expect(received <= 100_000 && received > 0)
            await session.invalidate()
        }
    }

    @Test func theByteStreamDeliversTheBodyInOrderInChunks() async throws {
        try await withNginx { nginx, session in
            let streamed = try await session.bytes(for: request(nginx.url("/files/payload.bin")))
            #expect(streamed.response.status == 200)
            var body = Data()
            var chunks = 0
            for try await chunk in streamed.body {
                body.append(chunk)
                chunks += 1
            }
            #expect(body == Data(payload))
            #expect(chunks > 1)
        }
    }

    @Test func charsetsFromTheHeaderAndTheByteOrderMark() async throws {
        try await withNginx { nginx, session in
            let text = "Größe: 5 €, café"
            try nginx.serve(Array(text.utf8), as: "utf8.txt")
            try nginx.serve([0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }, as: "utf16.txt")
            try nginx.serve([0x63, 0x61, 0x66, 0xE9, 0x20, 0x80], as: "latin1.txt")  // "café €" in windows-1252
            let utf8 = try #require(
                try await session.fetch(request(nginx.url("/charset/utf8.txt?charset=UTF-8"))).text())
            #expect(utf8 == DecodedText(string: text, charset: .utf8, source: .contentType))
            let unlabelled = try #require(try await session.fetch(request(nginx.url("/text/utf8.txt"))).text())
            #expect(unlabelled == DecodedText(string: text, charset: .utf8, source: .defaultCharset))
            let utf16 = try #require(try await session.fetch(request(nginx.url("/text/utf16.txt"))).text())
            #expect(utf16 == DecodedText(string: text, charset: .utf16LittleEndian, source: .byteOrderMark))
            let latin1 = try #require(
                try await session.fetch(request(nginx.url("/charset/latin1.txt?charset=ISO-8859-1"))).text())
            #expect(latin1 == DecodedText(string: "café €", charset: .windows1252, source: .contentType))
            let unknown = try await session.fetch(request(nginx.url("/charset/latin1.txt?charset=x-unknown")))
            #expect(unknown.text() == nil)
        }
    }

    @Test func badRequestsAreRefusedBeforeAnythingIsSent() async throws {
        try await withNginx { nginx, session in
            var injected = try request(nginx.url("/files/payload.bin"))
            injected.headers = ["X-Test": "a\r\nX-Injected: 1"]
            let header = await #expect(throws: SandboxError.self) { try await session.fetch(injected) }
            #expect(header?.code == .invalidArgument)
            let scheme = await #expect(throws: SandboxError.self) {
                try await session.fetch(request("ftp://127.0.0.1/x"))
            }
            #expect(scheme?.code == .invalidURL)
            var post = try request(nginx.url("/files/payload.bin"))
            post.body = Data("a=1".utf8)
            #expect(try await session.fetch(post).response.status == 405)  // nginx refuses POST to a static file
            await session.invalidate()
            let invalidated = await #expect(throws: SandboxError.self) {
                try await session.fetch(request(nginx.url("/files/payload.bin")))
            }
            #expect(invalidated?.code == .sessionInvalidated)
        }
    }
}
