import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// Connections past the caps, against a real `sandboxd`: closed at once, logged, the connections
/// already open and other processes' served.
@Suite(.serialized) struct ConnectionCapTests {
    /// Opens `count` connections that say hello and waits until each is welcomed.
    /// `count` connections the daemon admitted and keeps open. A connection the daemon closed at
    /// once (a moment earlier, the start-up's own probe may still have counted against the cap on
    /// a loaded machine) is replaced, within the deadline.
    private func admitted(_ count: Int, _ fixture: DaemonFixture) async throws -> [HostileSocket] {
        let hello = fixture.helloFrame()
        var sockets: [HostileSocket] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            sockets.removeAll { $0.isClosedByPeer }
            while sockets.count < count {
                let socket = try #require(HostileSocket(path: fixture.paths.socket))
                socket.send(hello)
                sockets.append(socket)
            }
            _ = await eventually(timeout: .seconds(10)) { sockets.allSatisfy { $0.hasAnswer || $0.isClosedByPeer } }
            if sockets.allSatisfy({ $0.hasAnswer && !$0.isClosedByPeer }) { return sockets }
        }
        Issue.record("\(count) connections were not admitted within 30 s")
        return sockets
    }

    @Test func oneProcessGetsAtMost64AndOthersAreServed() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon()
            var held = try await admitted(64, fixture)
            #expect(held.allSatisfy { !$0.isClosedByPeer })
            let refused = try #require(HostileSocket(path: fixture.paths.socket))
            refused.send(fixture.helloFrame())
            #expect(await eventually(timeout: .seconds(10)) { refused.isClosedByPeer })
            #expect(!refused.hasAnswer || refused.isClosedByPeer)
            // Another process is served, and the 64 are still open.
            let app = try await fixture.runApp("s", ["connect"])
            #expect(app.status == 0, "\(app.output.stderr)")
            #expect(held.allSatisfy { !$0.isClosedByPeer })
            #expect(fixture.daemonLog().contains("connections open, the most allowed for one process"))
            // One closed: its place is free again.
            held.removeLast()
            // (The daemon frees the place when it sees the close: a connection made before that
            // is refused, and the helper tries again.)
            let again = try await admitted(1, fixture)
            #expect(again.allSatisfy { $0.hasAnswer && !$0.isClosedByPeer })
        }
    }

    @Test func pastTheTotalNewConnectionsAreClosedAtOnce() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon(["--max-connections", "8", "--max-connections-per-process", "100"])
            let held = try await admitted(8, fixture)
            var refused: [HostileSocket] = []
            for _ in 0..<20 { refused.append(try #require(HostileSocket(path: fixture.paths.socket))) }
            #expect(await eventually(timeout: .seconds(10)) { refused.allSatisfy(\.isClosedByPeer) })
            #expect(held.allSatisfy { !$0.isClosedByPeer })
            let log = fixture.daemonLog()
            #expect(log.contains("8 connections are open, the most allowed"), "\(log)")
            // 20 refusals, logged at a limited rate: 10, then a summary with the next message.
            #expect(log.components(separatedBy: "refused a connection").count - 1 <= 10, "\(log)")
        }
    }
}
