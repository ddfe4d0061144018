import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// A GET or HEAD of a small plain file is answered on the event loop
/// (``ShareResponder/immediateResponse(to:context:)``) exactly as Hummingbird's path
/// (``ShareResponder/respond(to:context:)``) answers it — status, every header, body, log line —
/// and whatever it is not sure of goes to that path with nothing counted.
@Suite struct ImmediateResponseTests {
    static let code = "k7m2-p9qx-3hwf"
    static let authorization = "Basic " + Data("sandbox:\(code)".utf8).base64EncodedString()
    static let small = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    static let large = [UInt8](repeating: 0x61, count: Int(DAVMethods.inlineReadLimit) + 1)

    /// A responder on a scratch folder with `file.txt`, `page.html`, `empty`, `large.bin`, a
    /// folder, a hidden file and a symbolic link to a file outside.
    struct Fixture {
        let scratch: ScratchDirectory
        let responder: ShareResponder
        let log: CapturedLog
        let context = ShareRequestContext(client: "192.0.2.7", eventLoop: MultiThreadedEventLoopGroup.singleton.next())

        init() throws {
            scratch = try ScratchDirectory.make(prefix: "share-immediate")
            let documents = scratch.appending("Documents")
            try FileManager.default.createDirectory(atPath: documents + "/folder", withIntermediateDirectories: true)
            try plantFile(Array("\(documents)/file.txt".utf8), ImmediateResponseTests.small)
            try plantFile(Array("\(documents)/page.html".utf8), Array("<p>hi</p>".utf8))
            try plantFile(Array("\(documents)/empty".utf8), [])
            try plantFile(Array("\(documents)/large.bin".utf8), ImmediateResponseTests.large)
            try plantFile(Array("\(documents)/.hidden".utf8), Array("hidden".utf8))
            try plantFile(Array("\(scratch.path)/outside.txt".utf8), Array("outside".utf8))
            symlink(scratch.path + "/outside.txt", documents + "/link.txt")
            log = CapturedLog()
            let logger = log.logger(label: "sandbox.share", level: .info)
            let root = try ConfinedRoot(openingDirectoryAt: documents).openSubroot(at: .root, refusingSymlinks: true)
            let methods = DAVMethods(
                documents: root, locks: LockManager(), properties: DeadPropertyStore(root: root, logger: logger),
                readOnly: false, maximumUploadSize: nil, allowedAuthorities: ["127.0.0.1:8080"], logger: logger)
            responder = ShareResponder(
                methods: methods, credentials: ShareCredentials(user: "sandbox", password: ImmediateResponseTests.code),
                logger: logger)
        }

        func request(
            _ method: HTTPRequest.Method, _ path: String, _ fields: [(HTTPField.Name, String)] = [],
            authorization: String? = ImmediateResponseTests.authorization, body: [UInt8] = []
        ) -> Request {
            var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: path)
            if let authorization { head.headerFields[.authorization] = authorization }
            for (name, value) in fields { head.headerFields.append(HTTPField(name: name, value: value)) }
            return Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
        }

        /// Hummingbird's path's answer: status, header fields, body.
        func slow(_ request: Request) async throws -> (HTTPResponse.Status, HTTPFields, [UInt8]) {
            let response = await responder.respond(to: request, context: context)
            let writer = CollectingWriter()
            let sink = writer.sink
            try await response.body.write(writer)
            return (response.status, response.headers, sink.bytes)
        }

        /// Answers `request` at once and by Hummingbird's path; expects both the same, and the
        /// same log line; returns the answer given at once.
        @discardableResult
        func expectSame(
            _ request: Request, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> ImmediateResponse? {
            let before = log.messages.count
            guard let immediate = responder.immediateResponse(to: request, context: context) else {
                Issue.record(
                    "\(request.method) \(request.uri.path) not answered at once", sourceLocation: sourceLocation)
                return nil
            }
            let (status, headers, body) = try await slow(request)
            #expect(immediate.status == status, sourceLocation: sourceLocation)
            #expect(immediate.headers == headers, sourceLocation: sourceLocation)
            #expect(
                Array(immediate.body?.readableBytesView ?? ByteBufferView()) == body, sourceLocation: sourceLocation)
            let lines = Array(log.messages.dropFirst(before)).map(Self.withoutTime)
            #expect(lines.count == 2 && lines.first == lines.last, "\(lines)", sourceLocation: sourceLocation)
            return immediate
        }

        /// A log line without its milliseconds.
        static func withoutTime(_ line: String) -> String {
            line.split(separator: " ").dropLast(2).joined(separator: " ")
        }
    }

    @Test func aSmallFileItsValidatorsAndItsConditionalAnswers() async throws {
        let fixture = try Fixture()
        defer { fixture.scratch.remove() }
        let plain = try await fixture.expectSame(fixture.request(.get, "/file.txt"))
        #expect(plain?.status == .ok && plain?.body?.readableBytes == Self.small.count)
        let etag = plain?.headers[.eTag] ?? ""
        let modified = plain?.headers[.lastModified] ?? ""
        #expect(!etag.isEmpty && !modified.isEmpty)
        let notModified = try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.ifNoneMatch, etag)]))
        #expect(notModified?.status == .notModified && notModified?.body == nil)
        try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.ifModifiedSince, modified)]))
        try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.ifMatch, "\"other\"")]))
        try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.ifNoneMatch, "\"other\"")]))
        let range = try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.range, "bytes=10-19")]))
        #expect(range?.status == .partialContent && range?.body?.readableBytes == 10)
        try await fixture.expectSame(fixture.request(.get, "/file.txt", [(.range, "bytes=9000-")]))
        let head = try await fixture.expectSame(fixture.request(.head, "/file.txt"))
        #expect(head?.body == nil && head?.headers[.contentLength] == String(Self.small.count))
        try await fixture.expectSame(fixture.request(.head, "/large.bin"))
        try await fixture.expectSame(fixture.request(.get, "/page.html"))
        try await fixture.expectSame(fixture.request(.get, "/empty"))
    }

    @Test func refusalsAreTheSame() async throws {
        let fixture = try Fixture()
        defer { fixture.scratch.remove() }
        for path in ["/.hidden", "/Inbox/x", "/link.txt", "/missing", "/file.txt/below", "/folder", "/folder/"] {
            let get = try await fixture.expectSame(fixture.request(.get, path))
            #expect([404, 405].contains(get?.status.code ?? 0), "\(path): \(String(describing: get?.status))")
            try await fixture.expectSame(fixture.request(.head, path))
        }
        // A file replaced by a folder between two requests.
        try await fixture.expectSame(fixture.request(.get, "/file.txt"))
        let documents = fixture.scratch.appending("Documents")
        try FileManager.default.removeItem(atPath: documents + "/file.txt")
        try FileManager.default.createDirectory(atPath: documents + "/file.txt", withIntermediateDirectories: false)
        let replaced = try await fixture.expectSame(fixture.request(.get, "/file.txt"))
        #expect(replaced?.status == .methodNotAllowed)
    }

    /// What the responder is not sure of goes to Hummingbird's path, having counted nothing.
    @Test func unsureRequestsAreLeftToHummingbird() async throws {
        let fixture = try Fixture()
        defer { fixture.scratch.remove() }
        let responder = fixture.responder
        let context = fixture.context
        #expect(responder.immediateResponse(to: fixture.request(.get, "/large.bin"), context: context) == nil)
        #expect(responder.immediateResponse(to: fixture.request(.options, "/file.txt"), context: context) == nil)
        #expect(responder.immediateResponse(to: fixture.request(.get, "/.sandbox/"), context: context) == nil)
        let foreign = fixture.request(.get, "/file.txt")
        var misdirected = foreign.head
        misdirected.authority = "evil.example"
        let other = Request(head: misdirected, body: RequestBody(buffer: ByteBuffer()))
        #expect(responder.immediateResponse(to: other, context: context) == nil)
        #expect(
            responder.immediateResponse(to: fixture.request(.get, "/file.txt", authorization: nil), context: context)
                == nil)
        // Wrong codes, many more than the throttle allows, never count at once: the client is
        // not blocked by them, and Hummingbird's path still refuses with 401 (it counts).
        let wrong = "Basic " + Data("sandbox:wrong-code".utf8).base64EncodedString()
        for _ in 0..<50 {
            #expect(
                responder.immediateResponse(
                    to: fixture.request(.get, "/file.txt", authorization: wrong), context: context) == nil)
        }
        #expect(try await fixture.slow(fixture.request(.get, "/file.txt", authorization: wrong)).0 == .unauthorized)
        #expect(try await fixture.slow(fixture.request(.get, "/file.txt")).0 == .ok, "not blocked")
        #expect(fixture.log.messages.count == 2, "\(fixture.log.messages)")
    }

    /// An uploaded file's checksums (`OC-Checksum`) are sent at once as by Hummingbird's path.
    @Test func anUploadsChecksum() async throws {
        let fixture = try Fixture()
        defer { fixture.scratch.remove() }
        let put = try await fixture.slow(
            fixture.request(.put, "/uploaded.txt", [(.contentLength, "5")], body: Array("hello".utf8)))
        #expect(put.0 == .created)
        let get = try await fixture.expectSame(fixture.request(.get, "/uploaded.txt"))
        #expect(get?.headers[.ocChecksum]?.hasPrefix("SHA1:") == true, "\(String(describing: get?.headers))")
    }
}
