import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

@testable import SandboxDaemon

/// Re-attaching to a session whose queued events are more than one client's outbox may hold.
@Suite struct ReattachTests {
    /// 20,000 queued events (~4 MiB of frames, twice ``ConnectionLimits/outboxMaximum``) reach a
    /// client with a small receive buffer whole, in order, followed by "all delivered": the daemon
    /// reads and sends them a page at a time as the client takes them (it used to read them all
    /// and hand them all to the channel at once, which buffered what the client had not taken).
    @Test func aQueueLargerThanTheOutboxReachesASlowReaderWholeInOrder() async throws {
        try await DaemonFixture.with { fixture in
            let count = 20_000
            try await Self.queue(
                count, for: SessionKey(app: DaemonFixture.app, session: "big"), at: fixture.paths.queue)
            _ = try await fixture.startDaemon()
            let hello = fixture.helloFrame(app: DaemonFixture.app, session: "big", attach: true)
            let socket = fixture.paths.socket
            let (tasks, finished) = await onThread { Self.attach(socket, hello) }
            #expect(finished, "the connection ended after \(tasks.count) events: \(fixture.daemonLog().suffix(2000))")
            #expect(tasks == Array(1...count))
        }
    }

    /// Attaches with `hello` through a socket with a 4 KiB receive buffer and reads the events'
    /// task identifiers until "all events delivered" (`true`), the end of the connection or 60 s.
    private static func attach(_ path: String, _ hello: [UInt8]) -> (tasks: [Int], finished: Bool) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return ([], false) }
        defer { close(fd) }
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard RawClient.withAddress(path, { connect(fd, $0, $1) == 0 }) else { return ([], false) }
        var time = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = hello.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var tasks: [Int] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return (tasks, false) }  // closed, timed out or reset
            received += buffer[..<count]
            for body in RawClient.takeBodies(from: &received) {
                let message = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
                switch message?["type"] as? String {
                case "event": tasks.append(((message?["event"] as? [String: Any])?["taskID"] as? Int) ?? -1)
                case "allEventsDelivered": return (tasks, true)
                default: continue  // the welcome
                }
            }
        }
    }

    /// Queues `count` completions with a long message (~200 bytes a frame) for `key`, in the
    /// daemon's queue at `path`, closed again before the daemon opens it.
    private static func queue(_ count: Int, for key: SessionKey, at path: String) async throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let queue = try EventQueue(path: path)
        for task in 1...count {
            var event = BackgroundEventRecord(taskID: task, kind: .completed)
            event.errorCode = SandboxError.Code.cancelled.description
            event.errorMessage = String(repeating: "x", count: 120)
            let (queued, body) = (event, try EventQueue.json(event, "event"))
            queue.writes.commit("queue an event") { db in try EventQueue.append(db, queued, body: body, for: key) }
        }
        await queue.writes.flush()
    }
}
