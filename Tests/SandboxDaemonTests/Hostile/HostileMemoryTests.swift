import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// The issue's measurement: the daemon's memory while 1,000 hostile connections are attempted —
/// half frames before and after the hello, clients that ask and never read, silent ones — grows
/// by a bounded amount (`VmHWM`, the peak; before the limits it grew by more than a GiB), and the
/// daemon serves again once they are gone. The issue's goal is 64 MiB in all for a release build
/// (~40 MiB at rest); a debug build starts at ~44 MiB and its connections cost more, so this
/// test bounds the growth and prints the numbers (BENCHMARKS.md).
@Suite(.serialized) struct HostileMemoryTests {
    @Test func aThousandHostileConnectionsAddABoundedAmountOfMemory() async throws {
        try await DaemonFixture.with { fixture in
            // As if from 1,000 processes: one process may not take more than 64 connections.
            let daemon = try await fixture.startDaemon(["--max-connections-per-process", "1000"])
            let before = try #require(ProcessMemory(pid: daemon.pid))
            let socket = fixture.paths.socket
            let hello = fixture.helloFrame()
            let appHello = fixture.helloFrame(app: DaemonFixture.app, session: "flood")
            // A task whose listing is ~20 KB, for the clients that never read.
            let url = "http://127.0.0.1:9/" + String(repeating: "a", count: 20_000)
            let submit = RawClient.frame(
                #"{"type":"submit","requestID":1,"request":{"url":"\#(url)","headers":{},"waitsForConnectivity":false}}"#
            )
            let setup = await onThread { RawClient.exchange(path: socket, send: appHello + submit, timeout: 2) }
            #expect(setup.bodies.contains { $0.contains("submitted") }, "\(setup)")
            let list = RawClient.frame(#"{"type":"list","requestID":2}"#)
            let listings = Array((0..<500).map { _ in list }.joined())
            let halfHello = [0, 0, 0x20, 0] + [UInt8](repeating: 0x20, count: 4 << 10)
            let halfFrame = [0, 0x10, 0, 0] + [UInt8](repeating: 0x20, count: 512 << 10)
            let peak = Peak(pid: daemon.pid)
            let attempted = await onThread {
                var attempted = 0
                for round in 0..<4 {
                    var sockets: [(HostileSocket, [UInt8])] = []
                    for index in 0..<250 {
                        guard let socket = HostileSocket(path: socket) else { continue }
                        attempted += 1
                        switch (index + round) % 4 {
                        case 0: sockets.append((socket, halfHello))
                        case 1: sockets.append((socket, hello + halfFrame))
                        case 2: sockets.append((socket, appHello + listings))
                        default: sockets.append((socket, []))
                        }
                        peak.sample()
                    }
                    for kind in [halfHello, hello + halfFrame, appHello + listings] {
                        let group = sockets.filter { $0.1 == kind }.map(\.0)
                        HostileSocket.push(kind, to: group, timeout: .seconds(20))
                        peak.sample()
                    }
                }
                return attempted
            }
            #expect(attempted == 1_000)
            let after = try #require(ProcessMemory(pid: daemon.pid))
            print(
                "sandboxd VmHWM \(after.peak >> 10) KiB (before the clients \(before.peak >> 10) KiB), VmRSS \(after.resident >> 10) KiB, highest VmRSS seen \(peak.highest >> 10) KiB, 1,000 hostile connections"
            )
            #expect(
                after.peak - before.peak < 48 << 20, "VmHWM \(after.peak >> 20) MiB, \(before.peak >> 20) MiB before")
            // Alive, and serving once they are gone.
            let app = try await fixture.runApp("s", ["connect"])
            #expect(app.status == 0, "\(app.output.stderr)")
            #expect(daemon.isRunning)
        }
    }
}

/// The highest `VmRSS` of a process seen by ``sample()``.
private final class Peak: @unchecked Sendable {
    let pid: pid_t
    private(set) var highest = 0

    init(pid: pid_t) { self.pid = pid }

    /// Called from the one thread that drives the clients.
    func sample() {
        if let memory = ProcessMemory(pid: pid) { highest = max(highest, memory.resident) }
    }
}
