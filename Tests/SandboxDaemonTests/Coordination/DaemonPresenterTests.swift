import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

@testable import SandboxDaemon

/// A real `sandboxd` as a live user of the app's containers (kind `daemon`): an uninstall makes
/// it forget the app, a restore makes it deliver into the new container, and a killed daemon holds
/// nothing up. Each test runs a download paced by the fault server (2 KiB every 5 ms), so the
/// operation lands mid-transfer.
@Suite(.serialized) struct DaemonPresenterTests {
    private let key = SessionKey(app: DaemonFixture.app, session: "s")

    @Test(
        "uninstall: the running task is cancelled, the app's events, tasks and sessions are gone; a reinstall starts clean"
    )
    func uninstallForgetsTheApp() async throws {
        let server = try await FaultServer.start()
        // Paced until the app is gone (an attached app would take its finished file and events).
        server.set("/small.bin", Self.slow(TestData.bytes(1 << 20, seed: 41)))
        server.set("/slow.bin", Self.slow(TestData.bytes(4 << 20, seed: 42)))
        try await DaemonFixture.with { fixture in
            let app = try AppIdentifier(DaemonFixture.app)
            try await submitAndLeave(fixture, [server.url("/small.bin"), server.url("/slow.bin")])
            server.change("/small.bin") { $0.chunkDelayMilliseconds = 0 }
            // A finished task's events wait in the queue; the slow one runs.
            #expect(
                await eventually(timeout: .seconds(60)) { (try? fixture.stagedFiles("s")) == ["1-small.bin"] },
                "\(String(describing: try? fixture.stagedFiles("s"))): \(fixture.daemonLog().suffix(3000))")
            #expect(await eventually { server.bodyBytesSent(for: "/slow.bin") > 0 })
            let queue = try EventQueue(path: fixture.paths.queue)
            #expect(await eventually { (try? queue.pending(for: key).count) == 2 })
            // Purge would leave alone the folders the daemon writes in.
            #expect(
                try fixture.home.heldPaths(of: app)
                    == ["Library/Caches/com.sandbox.downloads", "Library/Caches/com.sandbox.background"])

            let failure = await onThread { () throws(SandboxError) in _ = try fixture.home.uninstall(app) }
            #expect(failure == nil)
            // The daemon is told the outcome (it polls): it forgets the app soon after.
            #expect(
                await eventually { fixture.daemonLog().contains("\(DaemonFixture.app) uninstalled") },
                "\(fixture.daemonLog().suffix(3000))")
            #expect(try queue.tasks(app: DaemonFixture.app).isEmpty)
            #expect(try queue.pending(for: key).isEmpty)
            #expect(try queue.relaunch(for: key) == nil)
            let status = try await DaemonStatus.query(paths: fixture.paths)
            #expect(status.activeTasks == 0 && status.queuedEvents == 0, "\(status)")
            #expect(try fixture.home.presenters(of: app).isEmpty)

            // Reinstalled under the same identifier: no task, no event of the old one.
            _ = try fixture.home.createContainer(for: app)
            let listed = try await fixture.runApp("s", ["list"])
            #expect(listed.lines.first?["tasks"] as? [Int] == [], "\(listed.output.stdout)")
            let attached = try await fixture.runApp("s", ["attach"])
            #expect(attached.events == ["didFinishEvents"], "\(attached.output.stdout)")
            try await server.stop()
        }
    }

    @Test("restore mid-download: the daemon lets go, then delivers the file byte-exact into the restored container")
    func restoreDeliversIntoTheNewContainer() async throws {
        let server = try await FaultServer.start()
        let payload = TestData.bytes(2 << 20, seed: 43)
        server.set("/slow.bin", Self.slow(payload))
        try await DaemonFixture.with { fixture in
            let app = try AppIdentifier(DaemonFixture.app)
            try await submitAndLeave(fixture, [server.url("/slow.bin")])
            #expect(await eventually { server.bodyBytesSent(for: "/slow.bin") > 64 << 10 })
            #expect(try fixture.stagedFiles("s").isEmpty)

            let failure = await operate(fixture.home, .restore, of: app) { () throws(SandboxError) in
                try Self.replaceDataContainer(of: app, in: fixture.home)
            }
            #expect(failure == nil)
            server.change("/slow.bin") { $0.chunkDelayMilliseconds = 0 }
            let restored = try fixture.home.container(for: app)
            let staged = try ContainerPath("Library/Caches/com.sandbox.background/s/1-slow.bin")
            #expect(
                await eventually(timeout: .seconds(120)) {
                    (try? restored.root.attributes(at: staged, followingSymlink: false)) != nil
                }, "\(fixture.daemonLog().suffix(3000))")
            let delivered = try restored.root.readContents(of: staged, maximumSize: 1 << 30)
            #expect(TestData.sha256(delivered) == TestData.sha256(payload))
            #expect(
                try restored.root.readContents(of: try ContainerPath("Documents/restored.txt"), maximumSize: 64) == [1])
            let attached = try await fixture.runApp("s", ["attach", "--exit-after", "1"])
            #expect(
                attached.events.suffix(3) == ["finished 1", "completed 1", "didFinishEvents"], "\(attached.events)")
            try await server.stop()
        }
    }

    @Test("restart (tmp emptied) mid-download: the daemon pauses, then continues from its partial file")
    func restartPausesAndContinues() async throws {
        let server = try await FaultServer.start()
        let payload = TestData.bytes(2 << 20, seed: 47)
        server.set("/slow.bin", Self.slow(payload))
        try await DaemonFixture.with { fixture in
            try await submitAndLeave(fixture, [server.url("/slow.bin")])
            #expect(await eventually { server.bodyBytesSent(for: "/slow.bin") > 256 << 10 })
            let failure = await onThread { () throws(SandboxError) in _ = try fixture.home.restart() }
            #expect(failure == nil)
            #expect(fixture.daemonLog().contains("sessions suspended for restart"))
            server.change("/slow.bin") { $0.chunkDelayMilliseconds = 0 }
            #expect(
                await eventually(timeout: .seconds(120)) { (try? fixture.stagedFiles("s")) == ["1-slow.bin"] },
                "\(fixture.daemonLog().suffix(3000))")
            let delivered = try fixture.contents("Library/Caches/com.sandbox.background/s/1-slow.bin")
            #expect(TestData.sha256(delivered) == TestData.sha256(payload))
            // Continued from the partial file: what was sent before the pause is not sent again
            // (beyond what a pause finds in flight: the sockets' buffers and the unflushed tail).
            let served = server.bodyBytesSent(for: "/slow.bin")
            #expect(served <= payload.count + (256 << 10), "served \(served) for \(payload.count)")
            #expect(server.requests.count >= 2)
            try await server.stop()
        }
    }

    @Test("a sandboxd stopped (SIGSTOP) mid-operation, then SIGKILLed, does not hold the operation up")
    func killedDaemonDoesNotHoldUp() async throws {
        let server = try await FaultServer.start()
        server.set("/slow.bin", Self.slow(TestData.bytes(4 << 20, seed: 44)))
        try await DaemonFixture.with { fixture in
            let app = try AppIdentifier(DaemonFixture.app)
            try await submitAndLeave(fixture, [server.url("/slow.bin")])
            let daemons = fixture.daemonPIDs()
            #expect(daemons.count == 1)
            for pid in daemons { kill(pid, SIGSTOP) }
            let started = ContinuousClock.now
            // The uninstall waits for the stopped daemon (at most its 10 s) until the kill.
            async let failure = onThread { () throws(SandboxError) in _ = try fixture.home.uninstall(app) }
            let state = try ContainerPath("Device/Coordination/\(DaemonFixture.app)/state")
            #expect(
                await eventually {
                    let bytes = (try? fixture.home.root.readContents(of: state, maximumSize: 4096)) ?? []
                    return String(decoding: bytes, as: UTF8.self).contains("\"will\"")
                })
            for pid in daemons { kill(pid, SIGKILL) }
            #expect(await failure == nil)
            #expect(ContinuousClock.now - started < SandboxHome.defaultCoordinationTimeout)
            #expect(throws: SandboxError.self) { try fixture.home.container(for: app) }
            try await server.stop()
        }
    }

    @Test("a staging folder the app replaced by a link into Library/Preferences receives nothing")
    func stagingThroughAPlantedLinkIsRefused() async throws {
        let server = try await FaultServer.start()
        server.set("/small.bin", FaultResource(body: TestData.bytes(1_000, seed: 45), etag: "\"small\""))
        try await DaemonFixture.with { fixture in
            try FileManager.default.createSymbolicLink(
                atPath: fixture.container.root.hostPath + "/Library/Caches/com.sandbox.background",
                withDestinationPath: "../Preferences")
            let output = try await fixture.runApp("s", ["submit", server.url("/small.bin"), "--exit-after", "1"])
            #expect(output.events.contains("completed 1"), "\(output.output.stdout)")
            let preferences = try ContainerPath("Library/Preferences")
            #expect(try fixture.container.root.contentsOfDirectory(at: preferences).isEmpty)
            #expect(fixture.daemonLog().contains("Refused"), "\(fixture.daemonLog().suffix(2000))")
            try await server.stop()
        }
    }

    @Test("a download whose destination folder the app replaced by a link into Library/Preferences is refused")
    func destinationThroughAPlantedLinkIsRefused() async throws {
        let server = try await FaultServer.start()
        server.set("/doc.bin", FaultResource(body: TestData.bytes(1_000, seed: 46), etag: "\"doc\""))
        try await DaemonFixture.with { fixture in
            let documents = fixture.container.root.hostPath + "/Documents"
            try FileManager.default.removeItem(atPath: documents)
            try FileManager.default.createSymbolicLink(atPath: documents, withDestinationPath: "Library/Preferences")
            let session = try DownloadSession(identifier: "links", container: fixture.container)
            let url = try #require(URL(string: server.url("/doc.bin")))
            let task = try session.downloadTask(with: DownloadRequest(url: url, destination: .documents))
            task.resume()
            let result = await task.result()
            #expect(throws: SandboxError.self) { try result.get() }
            if case .failure(let error) = result { #expect(error.code == .readOnly, "\(error)") }
            #expect(
                try fixture.container.root.contentsOfDirectory(at: try ContainerPath("Library/Preferences")).isEmpty)
            await session.invalidateAndCancel()
            try await server.stop()
        }
    }

    // MARK: Helpers

    /// A resource served 2 KiB every 5 ms (400 KiB/s).
    private static func slow(_ body: [UInt8]) -> FaultResource {
        var resource = FaultResource(body: body, etag: "\"slow\"")
        resource.chunkSize = 2_048
        resource.chunkDelayMilliseconds = 5
        return resource
    }

    /// Submits `urls` to session `s`, kills the app, and waits until the daemon is registered as a
    /// user of the app's containers.
    private func submitAndLeave(_ fixture: DaemonFixture, _ urls: [String]) async throws {
        let app = try fixture.startApp("s", ["submit"] + urls)
        #expect(
            await eventually {
                (try? app.standardOutput().components(separatedBy: "\"submitted\"").count) == urls.count + 1
            })
        app.signal(SIGKILL)
        _ = await app.exit
        let identifier = try AppIdentifier(DaemonFixture.app)
        #expect(await eventually { (try? fixture.home.presenters(of: identifier).map(\.kind)) == [.daemon] })
    }

    /// What a restore does to the data container: a new one (here another app's fresh container
    /// with `Documents/restored.txt`) exchanged with the live one, the replaced one removed.
    private static func replaceDataContainer(of app: AppIdentifier, in home: SandboxHome) throws(SandboxError) {
        let donor = try AppIdentifier("com.example.restored")
        let container = try home.createContainer(for: donor)
        try container.root.writeContents([1], to: try ContainerPath("Documents/restored.txt"))
        try home.root.exchangeItems(
            at: try ContainerPath("Containers/Data/\(app.rawValue)"),
            with: try ContainerPath("Containers/Data/\(donor.rawValue)"))
        _ = try home.uninstall(donor)
    }
}

/// Runs `operation` on `app` through ``/Sandbox/SandboxHome/coordinating(_:of:timeout:_:)`` on a
/// thread of its own (as a restore does, around `body`); its error, if any.
private func operate(
    _ home: SandboxHome, _ operation: CoordinatedOperation, of app: AppIdentifier,
    _ body: @escaping @Sendable () throws(SandboxError) -> Void
) async -> SandboxError? {
    await onThread { () throws(SandboxError) in try home.coordinating(operation, of: app, body) }
}

/// Runs `body` (a lifecycle operation, which blocks while it waits for the users) on a thread of
/// its own; its error, if any.
private func onThread(_ body: @escaping @Sendable () throws(SandboxError) -> Void) async -> SandboxError? {
    do {
        try await OwnedThread.run(name: "operation", body)
        return nil
    } catch {
        return error
    }
}
