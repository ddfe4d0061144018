import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Sandbox
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxShare

/// One line per request, `client METHOD /path status length milliseconds ms`, with the client of
/// the connection's context; none when the logger's level is above `info`.
@Suite struct RequestLogTests {
    @Test(arguments: [Logger.Level.info, .notice])
    func oneLinePerRequestAtInfo(level: Logger.Level) async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-request-log")
        defer { scratch.remove() }
        try plantFile(Array("\(scratch.path)/file.txt".utf8), Array("hello".utf8))
        let log = CapturedLog()
        let logger = log.logger(label: "sandbox.share", level: level)
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let credentials = ShareCredentials(user: "sandbox", password: "k7m2-p9qx-3hwf")
        let methods = DAVMethods(
            documents: root, locks: LockManager(), properties: DeadPropertyStore(root: root, logger: logger),
            readOnly: false,
            maximumUploadSize: nil, allowedAuthorities: ["127.0.0.1:8080"], logger: logger)
        let responder = ShareResponder(methods: methods, credentials: credentials, logger: logger)
        let context = ShareRequestContext(client: "192.0.2.7", eventLoop: MultiThreadedEventLoopGroup.singleton.next())
        var head = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/file.txt")
        head.headerFields[.authorization] = "Basic " + Data("sandbox:k7m2-p9qx-3hwf".utf8).base64EncodedString()
        let response = await responder.respond(
            to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
        #expect(response.status == .ok)
        let logged = log.messages
        if level == .info {
            #expect(logged.count == 1)
            let line = logged.first ?? ""
            #expect(line.hasPrefix("192.0.2.7 GET /file.txt 200 5 ") && line.hasSuffix(" ms"), "\(line)")
        } else {
            #expect(logged.isEmpty, "\(logged)")
        }
    }
}
