import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Background tasks end to end against nginx: submitted by the test app, run by the daemon, their
/// events streamed while the app is attached and queued durably while it is not.
@Suite(.serialized) struct BackgroundTaskTests {
    @Test func eventsStreamWhileAttached() async throws {
        let server = try await NginxServer.start()
        let one = TestData.bytes(300_000, seed: 1)
        let two = TestData.bytes(700_000, seed: 2)
        try server.serve(one, as: "one.bin")
        try server.serve(two, as: "two.bin")
        try await DaemonFixture.with { fixture in
            let output = try await fixture.runApp(
                "s", ["submit", server.url("/files/one.bin"), server.url("/files/two.bin"), "--exit-after", "2"])
            #expect(output.status == 0, "\(output.output.stdout)")
            let events = output.events.filter { !$0.hasPrefix("didFinishEvents") }
            #expect(Set(events) == ["finished 1", "completed 1", "finished 2", "completed 2"], "\(events)")
            for task in [1, 2] {
                let finished = try #require(events.firstIndex(of: "finished \(task)"))
                let completed = try #require(events.firstIndex(of: "completed \(task)"))
                #expect(finished < completed)
            }
            #expect(try fixture.contents("Library/Caches/one.bin") == one)
            #expect(try fixture.contents("Library/Caches/two.bin") == two)
            #expect(try fixture.stagedFiles("s").isEmpty, "the app moved every file")
            // Everything was handled and acknowledged: nothing is queued.
            #expect(await eventuallyAsync { (try? await DaemonStatus.query(paths: fixture.paths))?.queuedEvents == 0 })
        }
        await server.stop()
    }

    /// 40 tasks submitted at once (their records and events committed in batches): each gets its
    /// own identifier, its file and each of its events exactly once, in order.
    @Test func tasksSubmittedAtOnceEachCompleteOnce() async throws {
        let server = try await NginxServer.start()
        let count = 40
        var payloads: [[UInt8]] = []
        for index in 1...count {
            let payload = TestData.bytes(16_384 + index, seed: UInt64(200 + index))
            try server.serve(payload, as: "b\(index).bin")
            payloads.append(payload)
        }
        try await DaemonFixture.with { fixture in
            let urls = (1...count).map { server.url("/files/b\($0).bin") }
            let output = try await fixture.runApp("s", ["submit", "--batch", "--exit-after", "\(count)"] + urls)
            #expect(output.status == 0, "\(output.output.stdout)")
            let submitted = output.lines.compactMap { $0["submitted"] as? Int }
            #expect(submitted.count == count && Set(submitted) == Set(1...count), "\(submitted)")
            let events = output.events.filter { $0 != "didFinishEvents" }
            for task in 1...count {
                #expect(events.filter { $0 == "finished \(task)" }.count == 1, "task \(task): \(events)")
                #expect(events.filter { $0 == "completed \(task)" }.count == 1, "task \(task): \(events)")
                if let finished = events.firstIndex(of: "finished \(task)"),
                    let completed = events.firstIndex(of: "completed \(task)")
                {
                    #expect(finished < completed)
                }
            }
            for index in 1...count {
                #expect(try fixture.contents("Library/Caches/b\(index).bin") == payloads[index - 1])
            }
            #expect(await eventuallyAsync { (try? await DaemonStatus.query(paths: fixture.paths))?.queuedEvents == 0 })
            let again = try await fixture.runApp("s", ["attach"])
            #expect(again.events == ["didFinishEvents"], "each event was delivered once: \(again.output.stdout)")
        }
        await server.stop()
    }

    @Test func appKilledDaemonFinishesQueuesAndRedeliversOnce() async throws {
        let server = try await NginxServer.start(slowRate: "1m")
        let payload = TestData.bytes(2 << 20, seed: 3)
        try server.serve(payload, as: "slow.bin")
        try await DaemonFixture.with { fixture in
            let app = try fixture.startApp("s", ["submit", server.url("/slow/slow.bin")])
            #expect(await eventually { (try? app.standardOutput().contains("\"submitted\"")) == true })
            app.signal(SIGKILL)
            _ = await app.exit
            // The daemon goes on without the app; the list shows the task running.
            let listed = try await fixture.runApp("s", ["list"])
            #expect(listed.lines.first?["tasks"] as? [Int] == [1], "\(listed.output.stdout)")
            #expect(
                await eventually(timeout: .seconds(60)) {
                    (try? fixture.stagedFiles("s")) == ["1-slow.bin"]
                })
            #expect(try fixture.contents("Library/Caches/com.sandbox.background/s/1-slow.bin") == payload)
            #expect(await eventuallyAsync { await (try? DaemonStatus.query(paths: fixture.paths))?.queuedEvents == 2 })
            // Re-attached: the queued events in order, then "all delivered"; the file is moved.
            let first = try await fixture.runApp("s", ["attach", "--exit-after", "1"])
            #expect(first.events == ["finished 1", "completed 1", "didFinishEvents"], "\(first.output.stdout)")
            #expect(try fixture.contents("Library/Caches/slow.bin") == payload)
            #expect(try fixture.stagedFiles("s").isEmpty)
            // Delivered once: the next attach gets nothing but "all delivered".
            let second = try await fixture.runApp("s", ["attach"])
            #expect(second.events == ["didFinishEvents"], "\(second.output.stdout)")
        }
        await server.stop()
    }
}
