import Foundation
import Logging
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxShare

/// The share answers a lifecycle operation from its presenter's own thread: with every thread of
/// Swift's cooperative pool blocked in this process (the share's own, here), a restore still gets
/// the share's answer within its timeout, and the share then serves the restored Documents. Had
/// the share answered from a task on the pool (as it did), the restore would fail with
/// `container-in-use` naming it.
@Suite(.serialized) struct StarvedPoolCoordinationTests {
    @Test func aRestoreUnderAShareIsAnsweredWhileThePoolIsBlocked() async throws {
        let scratch = try ScratchDirectory.make()
        defer { scratch.remove() }
        let home = try SandboxHome(location: scratch.appending("home"))
        let app = try AppIdentifier("com.example.starved")
        let container = try home.createContainer(for: app, fileSharing: true)
        try container.root.writeContents(Array("old".utf8), to: try ContainerPath("Documents/old.txt"))
        var logger = Logger(label: "starved-share")
        logger.logLevel = .error
        let server = try ShareServer(
            container: container,
            configuration: ShareConfiguration(
                port: 0, credentials: ShareCredentials(user: "sandbox", password: "pool")),
            logger: logger)
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let serving = Task {
            do { try await server.run { listening.yield($0) } } catch {}
            listening.finish()
        }
        defer { serving.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(try home.presenters(of: app).map(\.kind) == [.share])  // registered before listening

        let width = ProcessInfo.processInfo.activeProcessorCount
        let pool = BlockedPool()
        for _ in 0..<width {
            Task.detached { pool.hold() }
        }
        let timeout = Duration.seconds(5)
        let outcome: Result<Duration, SandboxError> = try await onOwnThread {
            defer { pool.release() }
            guard pool.waitUntilHeld(width) else { return .failure(SandboxError(.interrupted, "never blocked")) }
            let started = ContinuousClock.now
            do throws(SandboxError) {
                try home.coordinating(.restore, of: app, timeout: timeout) { () throws(SandboxError) in
                    try Self.restore(app, in: home)
                }
                return .success(ContinuousClock.now - started)
            } catch {
                return .failure(error)
            }
        }
        let took = try outcome.get()
        #expect(took < timeout, "\(took)")
        // Serving the restored Documents (the restore waited for it).
        let listing = try await onOwnThread {
            let connection = try RawConnection(port: port, timeout: 20)
            defer { connection.close() }
            let authorization = "Basic " + Data("sandbox:pool".utf8).base64EncodedString()
            try connection.send(
                Array(
                    "GET /restored.txt HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: \(authorization)\r\n\r\n"
                        .utf8))
            return try connection.receiveResponse()
        }
        #expect(listing.status == 200)
        #expect(String(decoding: listing.body, as: UTF8.self) == "restored")
    }

    /// What a restore does: a new data container exchanged with the live one, the old one removed.
    private static func restore(_ app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
        let live = try ContainerPath("Containers/Data/\(app.rawValue)")
        let stage = try ContainerPath("Containers/Data/.restoring-\(app.rawValue)")
        for folder in ["Documents", "Library", "tmp"] {
            try home.root.createDirectory(at: try stage.appending(folder), withIntermediateDirectories: true)
        }
        try home.root.writeContents(
            Array("restored".utf8), to: try stage.appending("Documents").appending("restored.txt"))
        try home.root.exchangeItems(at: live, with: stage)
        try home.root.removeItem(at: stage, recursively: true)
    }
}
