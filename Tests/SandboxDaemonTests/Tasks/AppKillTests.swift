import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// 20 background tasks while the app is SIGKILLed at 50 random moments (each time started again
/// and re-attached): no event is lost, each task's events keep their order, and an event comes
/// twice only when a kill landed inside its delegate call (before its acknowledgement) — at most
/// once per kill.
@Suite(.serialized) struct AppKillTests {
    @Test func fiftyAppKillsLoseNoEvent() async throws {
        let server = try await NginxServer.start(slowRate: "400k")
        let count = 20
        var payloads: [[UInt8]] = []
        for index in 1...count {
            let payload = TestData.bytes(150_000 + index * 1_000, seed: UInt64(100 + index))
            try server.serve(payload, as: "f\(index).bin")
            payloads.append(payload)
        }
        try await DaemonFixture.with { fixture in
            var printed: [String] = []
            let urls = (1...count).map { server.url("/slow/f\($0).bin") }
            let first = try fixture.startApp("s", ["submit"] + urls)
            #expect(
                await eventually {
                    (try? first.standardOutput().components(separatedBy: "submitted").count) == count + 1
                })
            var app = first
            var kills = 0
            for _ in 0..<50 {
                // the random moment of the kill, not a wait for a condition
                try await Task.sleep(for: .milliseconds(Int.random(in: 10...80)))
                app.signal(SIGKILL)
                _ = await app.exit
                kills += 1
                printed += AppOutput.parse(try app.standardOutput()).compactMap(Self.event)
                app = try fixture.startApp("s", ["attach", "--exit-after", "1000"])
            }
            app.signal(SIGKILL)
            _ = await app.exit
            printed += AppOutput.parse(try app.standardOutput()).compactMap(Self.event)
            #expect(
                await eventuallyAsync(timeout: .seconds(120)) {
                    (try? await DaemonStatus.query(paths: fixture.paths))?.activeTasks == 0
                })
            let last = try await fixture.runApp("s", ["attach"])
            printed += last.lines.compactMap(Self.event)
            var duplicates = 0
            for task in 1...count {
                let finished = printed.filter { $0 == "finished \(task)" }.count
                let completed = printed.filter { $0 == "completed \(task)" }.count
                #expect(finished >= 1 && completed >= 1, "task \(task): \(finished) finished, \(completed) completed")
                duplicates += finished - 1 + completed - 1
                // Every copy of "finished" comes before the last "completed".
                if let lastFinished = printed.lastIndex(of: "finished \(task)"),
                    let lastCompleted = printed.lastIndex(of: "completed \(task)")
                {
                    #expect(lastFinished < lastCompleted, "task \(task) out of order")
                }
                #expect(try fixture.contents("Library/Caches/f\(task).bin") == payloads[task - 1])
            }
            #expect(duplicates <= kills, "\(duplicates) events delivered twice over \(kills) kills")
            #expect(try await DaemonStatus.query(paths: fixture.paths).queuedEvents == 0)
            print("app kill test: \(kills) kills, \(printed.count) events printed, \(duplicates) delivered twice")
        }
        await server.stop()
    }

    /// `finished N` / `completed N` from a printed line.
    private static func event(_ line: [String: Any]) -> String? {
        guard let kind = line["kind"] as? String, kind == "finished" || kind == "completed",
            let task = line["task"] as? Int
        else { return nil }
        return "\(kind) \(task)"
    }
}
