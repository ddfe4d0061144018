import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// Connections that do not say hello, or say too much before it, against a real `sandboxd`: closed
/// after the deadline, or at once, with a logged reason; a good client is served meanwhile.
@Suite(.serialized) struct BeforeTheHelloTests {
    @Test func aHelloThatNeverComesIsClosedAfterTheDeadline() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon()
            let socket = fixture.paths.socket
            let started = ContinuousClock.now
            let silent = try #require(HostileSocket(path: socket))
            let half = try #require(HostileSocket(path: socket))
            half.send(Array(fixture.helloFrame().prefix(10)))  // the length and 6 bytes of a hello
            let served = try await fixture.runApp("s", ["connect"])
            #expect(served.status == 0, "\(served.output.stderr)")
            #expect(await eventually(timeout: .seconds(30)) { silent.isClosedByPeer && half.isClosedByPeer })
            #expect(ContinuousClock.now - started >= .seconds(4), "closed before the 5 s deadline")
            #expect(fixture.daemonLog().contains("no hello within 5.0 seconds"), "\(fixture.daemonLog())")
        }
    }

    @Test func aFirstFrameLargerThanAHelloIsRefusedAsItsLengthArrives() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.startDaemon()
            let socket = fixture.paths.socket
            // 8 KiB + 1: past the hello's limit (a hello is a few hundred bytes), far below 1 MiB.
            let answer = await onThread { RawClient.exchange(path: socket, send: [0, 0, 0x20, 0x01], timeout: 20) }
            #expect(answer.closed, "\(answer)")
            #expect(answer.bodies.first?.contains("too-large") == true, "\(answer)")
            #expect(answer.bodies.first?.contains("8192") == true, "\(answer)")
            // A hello of 8 KiB is still read (padding is whitespace JSON allows).
            var hello = String(decoding: fixture.helloFrame().dropFirst(4), as: UTF8.self)
            hello += String(repeating: " ", count: 8_192 - hello.utf8.count)
            let padded = RawClient.frame(hello)
            let welcome = await onThread { RawClient.exchange(path: socket, send: padded, timeout: 2) }
            #expect(welcome.bodies.first?.contains("welcome") == true, "\(welcome)")
        }
    }
}
