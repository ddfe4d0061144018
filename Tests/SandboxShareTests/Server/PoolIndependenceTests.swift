import Foundation
import Logging
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// The share's file work runs on threads the library owns (the I/O engine's), never on Swift's
/// cooperative pool: with every thread of that pool blocked elsewhere in the process, a listing,
/// an upload, a new folder, a move, a deletion and the web page are still answered. Had they run on the pool, they would wait for it —
/// here, until the client's 20 s timeout.
@Suite(.serialized) struct PoolIndependenceTests {
    @Test func requestsAreAnsweredWhileTheCooperativePoolIsBlocked() async throws {
        let scratch = try ScratchDirectory.make()
        defer { scratch.remove() }
        try Data("hello".utf8).write(to: URL(fileURLWithPath: scratch.appending("a.txt")))
        var logger = Logger(label: "pool-independence")
        logger.logLevel = .error
        let server = ShareServer(
            documents: try ConfinedRoot(openingDirectoryAt: scratch.path),
            configuration: ShareConfiguration(
                port: 0, credentials: ShareCredentials(user: "sandbox", password: "pool-code")),
            logger: logger)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let serving = Task {
            do { try await server.run { listening.yield($0) } } catch {}
            listening.finish()
        }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let authorization = "Basic " + Data("sandbox:pool-code".utf8).base64EncodedString()
        @Sendable func request(
            _ method: String, _ target: String, headers: [(String, String)] = [], body: String = ""
        ) -> [UInt8] {
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(authorization)\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if method == "PUT" { head += "Content-Length: \(body.utf8.count)\r\n" }
            return Array((head + "\r\n" + body).utf8)
        }
        // The connection's task is started (on the pool) and waits for requests on its event loop.
        // Connected and logged in on one thread: a connection that sends no request within 5 s is
        // closed until it logs in, and resuming this task between the two may wait that long for
        // the pool (the other tests of the process hold its threads).
        let (connection, options) = try await onOwnThread {
            let connection = try RawConnection(port: port, timeout: 20)
            try connection.send(request("OPTIONS", "/"))
            return (connection, try connection.receiveResponse().status)
        }
        #expect(options == 200)

        let width = ProcessInfo.processInfo.activeProcessorCount
        let pool = BlockedPool()
        for _ in 0..<width {
            Task.detached { pool.hold() }
        }
        let statuses: Result<[Int], any Error> = try await onOwnThread {
            defer { pool.release() }
            guard pool.waitUntilHeld(width) else { return .failure(TestFailure("the pool was never blocked")) }
            return Result {
                var statuses: [Int] = []
                try connection.send(request("PROPFIND", "/", headers: [("Depth", "1")]))
                statuses.append(try connection.receiveResponse().status)
                try connection.send(request("PUT", "/b.txt", body: "uploaded"))
                statuses.append(try connection.receiveResponse().status)
                try connection.send(request("MKCOL", "/d"))
                statuses.append(try connection.receiveResponse().status)
                try connection.send(
                    request("MOVE", "/b.txt", headers: [("Destination", "http://127.0.0.1:\(port)/d/b.txt")]))
                statuses.append(try connection.receiveResponse().status)
                try connection.send(request("DELETE", "/a.txt"))
                statuses.append(try connection.receiveResponse().status)
                // The web page (without a session: sent to its login).
                try connection.send(request("GET", "/", headers: [("Accept", "text/html")]))
                statuses.append(try connection.receiveResponse().status)
                return statuses
            }
        }
        let answered = try statuses.get()
        #expect(answered == [207, 201, 201, 201, 204, 303])
        #expect(try String(contentsOfFile: scratch.appending("d/b.txt"), encoding: .utf8) == "uploaded")
        connection.close()
    }
}
