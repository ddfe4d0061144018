import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import Testing

/// The daemon as a process: started on demand once, serving clients, refusing bad ones without
/// being disturbed, stopping on SIGTERM and when idle.
@Suite(.serialized) struct DaemonProcessTests {
    private func hello(_ fixture: DaemonFixture, version: Int = 1) -> String {
        #"{"type":"hello","protocolVersion":\#(version),"hello":{"app":"\#(DaemonFixture.app)","home":"\#(fixture.home.location)","attach":false}}"#
    }

    @Test func appsStartingAtOnceStartOneDaemon() async throws {
        try await DaemonFixture.with { fixture in
            let apps = try (0..<4).map { try fixture.startApp("session\($0)", ["connect"]) }
            var pids: Set<Int> = []
            for app in apps {
                let output = AppOutput(try await app.finish(timeout: .seconds(60)))
                #expect(output.status == 0, "\(output.output.stdout) \(output.output.stderr)")
                if let pid = output.daemonPID { pids.insert(pid) }
                #expect(output.events == ["didFinishEvents"])
            }
            #expect(pids.count == 1, "daemons: \(pids)")
            #expect(fixture.daemonPIDs().map(Int.init) == Array(pids))
            let status = try await DaemonStatus.query(paths: fixture.paths)
            #expect(pids == [Int(status.pid)])
            #expect(status.activeTasks == 0 && status.queuedEvents == 0)
        }
    }

    @Test func badClientsGetClearErrorsAndOthersAreServed() async throws {
        try await DaemonFixture.with { fixture in
            let first = try await fixture.runApp("s", ["connect"])
            let daemon = try #require(first.daemonPID)
            let socket = fixture.paths.socket
            let hello = hello(fixture)
            // A length of 4 GiB: refused at once, before any body is sent.
            let huge = await onThread { RawClient.exchange(path: socket, send: [0xFF, 0xFF, 0xFF, 0xFF]) }
            #expect(huge.closed && huge.bodies.count == 1 && huge.bodies[0].contains("too-large"), "\(huge)")
            // Versions the daemon does not speak.
            for version in [0, 2] {
                let answer = await onThread {
                    RawClient.exchange(path: socket, send: RawClient.frame(self.hello(fixture, version: version)))
                }
                #expect(answer.closed && answer.bodies.first?.contains("protocol-version") == true, "\(answer)")
            }
            // Not JSON, then a hello that is not first.
            let garbage = await onThread { RawClient.exchange(path: socket, send: RawClient.frame("{{{")) }
            #expect(garbage.closed && garbage.bodies.first?.contains("protocol-violation") == true, "\(garbage)")
            let notFirst = await onThread {
                RawClient.exchange(path: socket, send: RawClient.frame(#"{"type":"list","requestID":1}"#))
            }
            #expect(notFirst.bodies.first?.contains("first message must be a hello") == true, "\(notFirst)")
            // Cut inside a frame, then gone.
            let cut = await onThread {
                RawClient.exchange(path: socket, send: Array(RawClient.frame(hello).prefix(10)), closeWriting: true)
            }
            #expect(cut.closed, "\(cut)")
            // After a good hello, an unreadable message gets an error and the connection stays.
            let status = #"{"type":"status","requestID":7}"#
            let mixed = await onThread {
                RawClient.exchange(
                    path: socket,
                    send: RawClient.frame(hello) + RawClient.frame(#"{"type":"nonsense","requestID":3}"#)
                        + RawClient.frame(status), timeout: 2)
            }
            #expect(mixed.bodies.count == 3, "\(mixed)")
            #expect(mixed.bodies.dropFirst().first?.contains("protocol-violation") == true)
            #expect(mixed.bodies.last?.contains("\"activeTasks\"") == true)
            // A client that never finishes its frame does not hold others up.
            let stalled = Task {
                await onThread { RawClient.exchange(path: socket, send: [0, 0, 1, 0, 1], timeout: 5) }
            }
            let second = try await fixture.runApp("s", ["connect"])
            #expect(second.daemonPID == daemon)
            #expect(fixture.daemonPIDs() == [pid_t(daemon)])
            _ = await stalled.value
        }
    }

    /// Once it answers, the daemon holds a `timerfd` for each of libdispatch's clocks: made later,
    /// while apps' connections have used up its descriptors, the failure would kill it (`SIGILL`).
    /// Its soft descriptor limit is raised to the hard one: 128 connections with 8 transfers each
    /// (a socket and a file apiece) would pass the usual 1,024, where libdispatch kills a process.
    @Test func theDaemonNeedsNoDescriptorForItsTimersOnceAnswering() async throws {
        try await DaemonFixture.with { fixture in
            let first = try await fixture.runApp("s", ["connect"])
            let pid = try #require(first.daemonPID)
            let clocks = try timerClocks(of: pid_t(pid))
            #expect(clocks.isSuperset(of: dispatchTimerClocks), "timer clocks held: \(clocks.sorted())")
            let limit = try DescriptorLimit.of(pid_t(pid))
            #expect(limit.soft == limit.hard, "the daemon's descriptor limit: \(limit)")
        }
    }

    @Test func sigtermStopsTheDaemonAndIdleExitToo() async throws {
        try await DaemonFixture.with { fixture in
            let first = try await fixture.runApp("s", ["connect"], idleExit: 600)
            let pid = try #require(first.daemonPID)
            kill(pid_t(pid), SIGTERM)
            #expect(await eventually { fixture.daemonPIDs().isEmpty })
            #expect(!FileManager.default.fileExists(atPath: fixture.paths.socket))
            let log = try String(contentsOfFile: fixture.paths.log, encoding: .utf8)
            #expect(log.contains("stopping (graceful shutdown)"))
            // Started again on the next use; this one exits by itself after a second of idleness.
            let again = try await fixture.runApp("s", ["connect"], idleExit: 1)
            #expect(again.status == 0)
            #expect(await eventually(timeout: .seconds(20)) { fixture.daemonPIDs().isEmpty })
            #expect(try String(contentsOfFile: fixture.paths.log, encoding: .utf8).contains("idle for"))
        }
    }

    @Test func statusWithoutDaemonSaysNotRunning() async throws {
        try await DaemonFixture.with { fixture in
            let output = try await BuiltProgram("sandboxd").run(
                ["--status", "--runtime-directory", fixture.paths.runtimeDirectory], environment: fixture.environment(),
                outputIn: fixture.scratch.path)
            #expect(output.status == 1)
            #expect(output.stderr.contains("not running"))
            #expect(fixture.daemonPIDs().isEmpty)  // --status never starts one
        }
    }
}
