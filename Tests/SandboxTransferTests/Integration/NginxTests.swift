import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Downloads from a real nginx: identity encoding where gzip is on, resuming with `Range` +
/// `If-Range`, a changed file restarting from zero, `Content-Disposition` names, redirect chains.
@Suite struct NginxTests {
    let payload = TestData.bytes(1_500_000, seed: 5)

    /// nginx's `limit_rate` sends a second's worth at a time: a stall timeout of a second would fire.
    /// `/slow/` sends a first download at 64 KB/s (23 s for the payload), so a test pausing it once
    /// bytes arrive never finds it finished, however loaded the machine; resumptions run unlimited.
    static let configuration = DownloadSession.Configuration(
        retryPolicy: RetryPolicy(maximumAttempts: 8, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50)),
        stallTimeout: .seconds(10), progressInterval: .milliseconds(20))

    func withNginx(_ body: (NginxServer, Fixture) async throws -> Void) async throws {
        let nginx = try await NginxServer.start(slowRate: "64k")
        do {
            try nginx.serve(payload, as: "payload.bin")
            try await Fixture.with { fixture in try await body(nginx, fixture) }
        } catch {
            await nginx.stop()  // `error` propagates
            throw error
        }
        await nginx.stop()
    }

    @Test(arguments: ["/files/payload.bin", "/gzip/payload.bin", "/redirect/5"])
    func downloadsAreExact(path: String) async throws {
        try await withNginx { nginx, fixture in
            let digest = try ExpectedDigest(.sha256, hex: TestData.sha256(payload))
            let outcome = try await fixture.download(nginx.url(path), session: fixture.session(), digest: digest).get()
            #expect(TestData.sha256(try fixture.contents(outcome.path)) == digest.hex)
            #expect(outcome.path?.description == "Library/Caches/payload.bin")
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    /// Pauses a download of `/slow/payload.bin` once some bytes are on disk.
    func pausedDownload(_ nginx: NginxServer, _ session: DownloadSession) async throws -> ResumeData {
        let task = try session.downloadTask(
            with: DownloadRequest(url: try #require(URL(string: nginx.url("/slow/payload.bin")))))
        task.resume()
        #expect(await eventually { task.progress.totalBytesWritten > 0 })
        return try #require(await task.cancelByProducingResumeData())
    }

    @Test func pauseAndResumeWithRangeAndIfRange() async throws {
        try await withNginx { nginx, fixture in
            let session = try fixture.session("test", Self.configuration)
            let events = EventLog(session)
            let resumeData = try await pausedDownload(nginx, session)
            guard case .entityTag = resumeData.validator else { throw TestServerError("nginx sent no strong ETag") }
            let task = try session.downloadTask(withResumeData: resumeData, destination: .documents)
            task.resume()
            let outcome = try await task.result().get()
            #expect(TestData.sha256(try fixture.contents(outcome.path)) == TestData.sha256(payload))
            let offset = try #require(events.resumeOffsets.first)
            #expect(offset > 0)
            #expect(events.restarts.isEmpty)
            await nginx.stop()
            let log = nginx.accessLog()
            #expect(log.contains { $0.status == 206 && $0.range == "\"bytes=\(offset)-\"" })
        }
    }

    @Test func aChangedFileOfTheSameLengthRestartsFromZero() async throws {
        try await withNginx { nginx, fixture in
            let session = try fixture.session("test", Self.configuration)
            let events = EventLog(session)
            let resumeData = try await pausedDownload(nginx, session)
            let changed = TestData.bytes(payload.count, seed: 6)
            try nginx.serve(changed, as: "payload.bin")
            // nginx's ETag is mtime-size with one-second mtimes: make the change visible to it.
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(10)], ofItemAtPath: nginx.documentRoot + "/payload.bin")
            let task = try session.downloadTask(withResumeData: resumeData, destination: .caches)
            task.resume()
            let outcome = try await task.result().get()
            #expect(TestData.sha256(try fixture.contents(outcome.path)) == TestData.sha256(changed))
            #expect(events.restarts == [.validatorChanged])
        }
    }

    @Test func contentDispositionNamesAndCollisions() async throws {
        try await withNginx { nginx, fixture in
            let session = try fixture.session("test", Self.configuration)
            let first = try await fixture.download(
                nginx.url("/named/payload.bin"), session: session, destination: .documents
            ).get()
            let second = try await fixture.download(
                nginx.url("/named/payload.bin"), session: session, destination: .documents
            ).get()
            #expect(first.path?.description == "Documents/résumé final.pdf")
            #expect(second.path?.description == "Documents/résumé final (1).pdf")
            #expect(try fixture.contents(second.path) == payload)
        }
    }

    @Test func aRecreatedSessionReportsUnfinishedTasksWithResumeData() async throws {
        try await withNginx { nginx, fixture in
            var taskIdentifier = 0
            do {
                let session = try fixture.session("test", Self.configuration)
                let task = try session.downloadTask(
                    with: DownloadRequest(url: try #require(URL(string: nginx.url("/slow/payload.bin")))))
                taskIdentifier = task.taskIdentifier
                task.resume()
                #expect(await eventually { task.progress.totalBytesWritten > 0 })
                task.suspend()  // left unfinished, as if the process had died
            }
            var reopened: DownloadSession?
            #expect(
                await eventually {
                    reopened = try? fixture.session()
                    return reopened != nil
                })  // the old run lets go of it
            let session = try #require(reopened)
            let events = EventLog(session)
            var interrupted: SandboxError?
            #expect(
                await eventually {
                    interrupted =
                        events.all.lazy.compactMap { event -> SandboxError? in
                            if case .didComplete(let task, let error) = event, task.taskIdentifier == taskIdentifier {
                                error
                            } else {
                                nil
                            }
                        }.first
                    return interrupted != nil
                })
            #expect(interrupted?.code == .interrupted)
            let resumeData = try #require(interrupted?.resumeData)
            #expect(session.pendingResumeData() == [resumeData])
            let task = try session.downloadTask(withResumeData: resumeData, destination: .caches)
            task.resume()
            let outcome = try await task.result().get()
            #expect(TestData.sha256(try fixture.contents(outcome.path)) == TestData.sha256(payload))
            #expect(session.pendingResumeData().isEmpty)
            await nginx.stop()
            #expect(nginx.accessLog().last?.status == 206)
        }
    }
}
