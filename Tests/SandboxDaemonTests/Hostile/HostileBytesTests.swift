import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// Clients that make the daemon hold bytes, against a real `sandboxd`: half-sent frames after the
/// hello, and a client that asks and never reads. Each is dropped with a logged reason once past
/// its limit or the shared budget; the daemon stays small and serves the others.
@Suite(.serialized) struct HostileBytesTests {
    @Test func halfSentFramesAreDroppedPastTheBudget() async throws {
        try await DaemonFixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let hello = fixture.helloFrame()
            var sockets: [HostileSocket] = []
            for _ in 0..<40 {
                let socket = try #require(HostileSocket(path: fixture.paths.socket))
                socket.send(hello)
                sockets.append(socket)
            }
            #expect(await eventually(timeout: .seconds(30)) { sockets.allSatisfy(\.hasAnswer) })
            // A frame that declares 1 MiB, 600 KiB of it sent: 40 of them would be 24 MB held.
            let half = [0, 0x10, 0, 0] + [UInt8](repeating: 0x20, count: 600 << 10)
            let all = sockets
            await onThread { HostileSocket.push(half, to: all) }
            // 2 MiB of budget beyond 8 KiB a connection: a few such frames fit.
            #expect(await eventually(timeout: .seconds(30)) { sockets.filter(\.isClosedByPeer).count >= 40 - 15 })
            let app = try await fixture.runApp("s", ["connect"])
            #expect(app.status == 0, "\(app.output.stderr)")
            let log = fixture.daemonLog()
            #expect(log.contains("bytes of frames being received"), "\(log)")
            let memory = try #require(ProcessMemory(pid: daemon.pid))
            #expect(memory.peak < 64 << 20, "VmHWM \(memory.peak >> 20) MiB")
        }
    }

    @Test func aClientThatNeverReadsIsClosedPastItsLimit() async throws {
        try await DaemonFixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            let client = try #require(HostileSocket(path: fixture.paths.socket))
            client.send(fixture.helloFrame(app: DaemonFixture.app, session: "flood"))
            // One task whose URL is 20 KB long: each listing of the session answers about 20 KB.
            let url = "http://127.0.0.1:9/" + String(repeating: "a", count: 20_000)
            let submit =
                #"{"type":"submit","requestID":1,"request":{"url":"\#(url)","headers":{},"waitsForConnectivity":false}}"#
            // 3,000 listings: 60 MB of answers the client never reads.
            let list = RawClient.frame(#"{"type":"list","requestID":2}"#)
            let requests = RawClient.frame(submit) + Array((0..<3_000).map { _ in list }.joined())
            await onThread { HostileSocket.push(requests, to: [client]) }
            #expect(await eventually(timeout: .seconds(60)) { client.isClosedByPeer })
            let log = fixture.daemonLog()
            #expect(log.contains("bytes of answers the client has not read"), "\(log)")
            let memory = try #require(ProcessMemory(pid: daemon.pid))
            #expect(memory.peak < 64 << 20, "VmHWM \(memory.peak >> 20) MiB")
            let app = try await fixture.runApp("s", ["connect"])
            #expect(app.status == 0, "\(app.output.stderr)")
        }
    }
}
