import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Synchronization
import Testing

/// The delegate, temporary files, concurrency limits and the rate limit.
@Suite struct SessionTests {
    let body = TestData.bytes(200_000, seed: 21)

    /// Records the delegate calls; moves the file into Documents when `moving`.
    final class Recorder: DownloadSessionDelegate {
        let moving: Bool
        let calls = Mutex<[String]>([])
        let finished = Mutex<DownloadedFile?>(nil)

        init(moving: Bool) { self.moving = moving }

        func downloadSession(
            _ session: DownloadSession, downloadTask: DownloadTask, didFinishDownloadingTo location: DownloadedFile
        ) {
            calls.withLock { $0.append("finish") }
            finished.withLock { $0 = location }
            if moving { _ = try? location.move(to: .documents) }  // checked by the test through movedPath
        }

        func downloadSession(
            _ session: DownloadSession, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
            totalBytesWritten: Int64,
            totalBytesExpectedToWrite: Int64?
        ) {
            calls.withLock {
                $0.append("write \(totalBytesWritten)/\(totalBytesExpectedToWrite.map(String.init) ?? "?")")
            }
        }

        func downloadSession(
            _ session: DownloadSession, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
            expectedTotalBytes: Int64?
        ) {
            calls.withLock { $0.append("resume \(fileOffset)/\(expectedTotalBytes.map(String.init) ?? "?")") }
        }

        func downloadSession(_ session: DownloadSession, task: DownloadTask, didCompleteWithError error: SandboxError?)
        {
            calls.withLock { $0.append("complete \(error.map { "\($0.code)" } ?? "ok")") }
        }
    }

    @Test(arguments: [true, false])
    func delegateGetsTheSeedsCallbacksAndATemporaryFile(moving: Bool) async throws {
        try await withFaultServer { server in
            var resource = FaultResource(body: body, etag: "\"d\"")
            resource.dropAfter = [120_000]
            resource.contentDisposition = "attachment; filename=\"report.bin\""
            server.set("/f", resource)
            try await Fixture.with { fixture in
                let recorder = Recorder(moving: moving)
                let session = try DownloadSession(
                    identifier: "test", container: fixture.container, configuration: Fixture.fast, delegate: recorder)
                let task = try session.downloadTask(with: try #require(URL(string: server.url("/f"))))
                task.resume()
                let outcome = try await task.result().get()
                #expect(outcome.path == nil)  // no destination: the file was handed over
                let calls = recorder.calls.withLock { $0 }
                #expect(calls.contains { $0.hasPrefix("resume ") && $0.hasSuffix("/200000") })
                #expect(calls.contains("write 200000/200000"))
                #expect(Array(calls.suffix(2)) == ["finish", "complete ok"])
                let file = try #require(recorder.finished.withLock { $0 })
                #expect(file.suggestedFilename == "report.bin")
                if moving {
                    #expect(file.movedPath?.description == "Documents/report.bin")
                    #expect(try fixture.contents(file.movedPath) == body)
                } else {
                    #expect(file.movedPath == nil)
                    // deleted when the callback returned
                    #expect(throws: SandboxError.self) { try file.move(to: .documents) }
                    #expect(try fixture.files(in: .documents).isEmpty)
                }
                #expect(try fixture.leftovers().isEmpty)
            }
        }
    }

    @Test func streamFilesAreDeletedWhenDroppedUnmoved() async throws {
        try await withFaultServer { server in
            server.set("/f", FaultResource(body: body, etag: "\"s\""))
            try await Fixture.with { fixture in
                let session = try fixture.session()
                let task = try session.downloadTask(with: try #require(URL(string: server.url("/f"))))
                task.resume()
                var temporary: ContainerPath?
                for await event in session.events {
                    if case .didFinishDownloading(_, let file) = event {
                        temporary = file.temporaryPath
                        #expect(try fixture.contents(file.temporaryPath) == body)
                        break  // dropped without moving
                    }
                }
                _ = await task.result()
                let path = try #require(temporary)
                #expect(try await eventually { try !fixture.root.fileExists(at: path) })
            }
        }
    }

    @Test func concurrencyIsLimitedPerSessionAndPerHost() async throws {
        try await withFaultServer { server in
            var stalled = FaultResource(body: body, etag: "\"c\"")
            stalled.stallAfter = Array(repeating: 1_000, count: 20)  // never finishes on its own
            server.set("/f", stalled)
            try await Fixture.with { fixture in
                var configuration = Fixture.fast
                configuration.maximumConcurrentTasks = 3
                configuration.maximumConcurrentTasksPerHost = 2
                configuration.stallTimeout = .seconds(30)
                let session = try fixture.session("test", configuration)
                let hostA = try (0..<3).map { _ in
                    try session.downloadTask(with: try #require(URL(string: server.url("/f"))))
                }
                let hostB = try (0..<2).map { _ in
                    try session.downloadTask(with: try #require(URL(string: "http://localhost:\(server.port)/f")))
                }
                for task in hostA + hostB { task.resume() }
                func running(_ tasks: [DownloadTask]) -> Int { tasks.count { $0.state == .running } }
                #expect(await eventually { running(hostA) == 2 && running(hostB) == 1 })
                #expect(hostA.count { $0.state == .waiting } == 1 && hostB.count { $0.state == .waiting } == 1)
                let first = try #require(hostA.first { $0.state == .running })
                first.cancel()
                #expect(await eventually { running(hostA) == 2 && running(hostB) == 1 && first.state == .completed })
                for task in hostA + hostB { task.cancel() }
                for task in hostA + hostB { #expect(await task.result().failure?.code == .cancelled) }
                #expect(try fixture.leftovers().isEmpty)
            }
        }
    }

    @Test func rateLimitSlowsTheTransfer() async throws {
        try await withFaultServer { server in
            server.set("/f", FaultResource(body: body, etag: "\"r\""))
            try await Fixture.with { fixture in
                var configuration = Fixture.fast
                configuration.rateLimit = 1_000_000  // 200 kB at 1 MB/s: at least 0.2 s
                let session = try fixture.session("test", configuration)
                let start = ContinuousClock.now
                _ = try await fixture.download(server.url("/f"), session: session).get()
                #expect(ContinuousClock.now - start >= .milliseconds(190))
            }
        }
    }
}
