import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Every server fault ends byte-exact (SHA-256) or with a precise error, and never leaves a
/// temporary file behind.
@Suite struct FaultServerTests {
    static let size = 300_000
    let body = TestData.bytes(FaultServerTests.size, seed: 11)
    let other = TestData.bytes(FaultServerTests.size, seed: 12)

    /// What async-http-client may hold and drop when a connection breaks (its buffered body parts).
    static let clientBufferAllowance = 128 * 1024

    /// Each resume starts past the previous one, and no later than the bytes the server sent (a
    /// loaded machine may add a retry after a stall, which resumes too).
    func expectContinued(_ offsets: [Int64], drops: [Int]) {
        #expect(offsets.count >= drops.count)
        #expect(offsets == offsets.sorted(), "\(offsets)")
        #expect(offsets.first.map { $0 <= Int64(drops[0]) } ?? false, "\(offsets)")
    }

    @Test func noContentLength() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"a\"")
            resource.sendsContentLength = false
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(
                events.progress.dropLast().allSatisfy {
                    $0.totalBytesExpectedToWrite == nil && $0.fractionCompleted == nil
                })
            #expect(server.requests.allSatisfy { $0.acceptEncoding == "identity" })
        }
    }

    @Test func strongETagResumesAtEveryDrop() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"strong\"")
            resource.dropAfter = [40_000, 1, 70_000, 12_345]
            let events = try await fixture.downloadExactly(resource, from: server)
            let requests = server.requests
            #expect(requests.count >= 5)
            #expect(
                requests.dropFirst().allSatisfy {
                    $0.status == 206 && $0.ifRange == "\"strong\"" && $0.range?.hasPrefix("bytes=") == true
                })
            expectContinued(events.resumeOffsets, drops: [40_000, 1, 70_000, 12_345])
            #expect(server.bodyBytesSent(for: "/f") < body.count + 4 * Self.clientBufferAllowance)
            #expect(events.restarts.isEmpty)
        }
    }

    @Test func lastModifiedAloneGuardsAResume() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, lastModified: "Tue, 15 Nov 1994 08:12:31 GMT")
            resource.dropAfter = [100_000]
            _ = try await fixture.downloadExactly(resource, from: server)
            #expect(server.requests.last?.ifRange == "Tue, 15 Nov 1994 08:12:31 GMT")
            #expect(server.requests.last?.status == 206)
        }
    }

    @Test func weakETagNeverResumesButFinishes() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "W/\"weak\"")
            resource.dropAfter = [100_000, 50_000]
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(server.requests.allSatisfy { $0.range == nil && $0.ifRange == nil })
            #expect(events.restarts == [.noValidator, .noValidator])
        }
    }

    /// A 200 to a `Range` restarts from zero (never appends). One with a `Content-Range` of our
    /// offset (and the tail as its body) is not trusted: it starts over without `Range`.
    @Test(arguments: [false, true])
    func okInAnswerToARange(withOurContentRange: Bool) async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"s\"")
            resource.honoursRange = withOurContentRange
            resource.saysOKForRanges = withOurContentRange
            resource.dropAfter = [100_000]
            let events = try await fixture.downloadExactly(resource, from: server)
            let ranged = try #require(server.requests.dropFirst().first)
            #expect(ranged.range?.hasPrefix("bytes=") == true && ranged.status == 200)
            #expect(events.restarts == (withOurContentRange ? [.contentRangeMismatch] : [.serverIgnoredRange]))
            #expect(events.resumeOffsets.isEmpty)
        }
    }

    /// A session (no retries) whose download of `/f` (`body`, ETag v1) was paused at `offset`.
    func pausedDownload(
        _ server: FaultServer, _ fixture: Fixture, at offset: Int
    ) async throws -> (DownloadSession, EventLog, ResumeData) {
        server.set("/f", FaultResource(body: body, etag: "\"v1\""))
        let session = try fixture.session("test", Fixture.noRetries)
        let events = EventLog(session)
        return (session, events, try await pause(server, fixture, session, at: offset))
    }

    /// Resumes into Caches and expects `expected` byte for byte.
    func resumeExactly(
        _ resumeData: ResumeData, in session: DownloadSession, expecting expected: [UInt8], _ fixture: Fixture
    ) async throws {
        let task = try session.downloadTask(withResumeData: resumeData, destination: .caches)
        task.resume()
        try fixture.expectExact(await task.result(), expected)
    }

    /// Pauses a download at `offset` (the server drops, no retries): returns the resume data.
    func pause(
        _ server: FaultServer, _ fixture: Fixture, _ session: DownloadSession, at offset: Int
    ) async throws -> ResumeData {
        server.change("/f") { $0.dropAfter = [offset] }
        let result = try await fixture.download(server.url("/f"), session: session)
        let error = try #require(result.failure)
        #expect(error.code == .network)
        return try #require(error.resumeData)
    }

    /// The resource changes (same length) between attempts: never spliced. With `If-Range` the
    /// server answers 200; a broken server that ignores it answers 206 of the new version, which the
    /// changed `ETag` gives away.
    @Test(arguments: [true, false])
    func sameLengthChangeIsNeverSpliced(serverHonoursIfRange: Bool) async throws {
        try await Fixture.withFaultServer { server, fixture in
            let (session, events, resumeData) = try await pausedDownload(server, fixture, at: 150_000)
            var changed = FaultResource(body: other, etag: "\"v2\"")
            changed.honoursIfRange = serverHonoursIfRange
            server.set("/f", changed)
            try await resumeExactly(resumeData, in: session, expecting: other, fixture)
            #expect(events.restarts == [.validatorChanged])
            #expect(server.requests.last?.status == 200)
        }
    }

    @Test func aReplacedPartialFileIsNotContinued() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let (session, events, resumeData) = try await pausedDownload(server, fixture, at: 150_000)
            let partial = try DownloadSession.folder.appending("test").appending(resumeData.partialFile.name)
            _ = try fixture.root.removeItem(at: partial)
            try fixture.root.writeContents(other.prefix(150_000), to: partial)  // same name and size, another file
            try await resumeExactly(resumeData, in: session, expecting: body, fixture)
            #expect(events.restarts == [.partialFileUnusable])
            #expect(server.requests.last?.range == nil)
        }
    }

    @Test func rangeNotSatisfiableRestartsOrCompletes() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let (session, events, resumeData) = try await pausedDownload(server, fixture, at: 200_000)
            let shorter = Array(other.prefix(100_000))
            server.set("/f", FaultResource(body: shorter, etag: "\"v1\""))  // same tag, shorter: a 416
            try await resumeExactly(resumeData, in: session, expecting: shorter, fixture)
            #expect(events.restarts == [.rangeNotSatisfiable])
            #expect(server.requests.map(\.status).suffix(2) == [416, 200])
        }
    }

    @Test func wholeFileOnDiskCompletesWithA416() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"v1\"")
            resource.sendsContentLength = false  // so the client cannot know it has everything
            resource.stallAfter = [body.count]  // all bytes, then silence: the stall timeout fails it
            server.set("/f", resource)
            var configuration = Fixture.noRetries
            configuration.stallTimeout = .seconds(1)
            let session = try fixture.session("test", configuration)
            let request = DownloadRequest(url: try #require(URL(string: server.url("/f"))), destination: .caches)
            let first = try session.downloadTask(with: request)
            first.resume()
            let error = try #require(await first.result().failure)
            #expect(error.code == .stalled)
            let resumeData = try #require(error.resumeData)
            server.change("/f") { $0.stallAfter = [] }
            let task = try session.downloadTask(withResumeData: resumeData)
            task.resume()
            try fixture.expectExact(await task.result(), body)
            #expect(server.requests.last?.status == 416)
        }
    }

    @Test func gzipIsStoredAsSentAndNotResumed() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "W/\"gz\"")
            resource.contentEncoding = "gzip"
            resource.dropAfter = [64_000]
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(events.restarts == [.noValidator])
        }
    }

    @Test func redirectChainsAreFollowed() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"r\"")
            resource.contentDisposition = "attachment; filename*=UTF-8''final%20name.bin"
            resource.dropAfter = [90_000]
            server.set("/f", resource)
            for step in 1...4 {
                var hop = FaultResource(body: [])
                hop.redirectTo = step == 4 ? "/f" : "/r\(step + 1)"
                server.set("/r\(step)", hop)
            }
            let session = try fixture.session()
            let outcome = try await fixture.download(server.url("/r1"), session: session)
            try fixture.expectExact(outcome, body)
            #expect(try outcome.get().path?.description == "Library/Caches/final name.bin")
            #expect(server.requests.last?.status == 206)
        }
    }

    @Test func redirectLoopsFail() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var a = FaultResource(body: [])
            a.redirectTo = "/b"
            var b = FaultResource(body: [])
            b.redirectTo = "/a"
            server.set("/a", a)
            server.set("/b", b)
            let error = try #require(try await fixture.download(server.url("/a"), session: fixture.session()).failure)
            #expect(error.code == .tooManyRedirects)
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    @Test func slowAndStalledServersContinue() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"slow\"")
            resource.chunkSize = 16_384
            resource.chunkDelayMilliseconds = 2
            resource.stallAfter = [50_000]
            server.set("/f", resource)
            let session = try fixture.session("test", Fixture.stallingAfterASecond)
            let events = EventLog(session)
            try fixture.expectExact(try await fixture.download(server.url("/f"), session: session), body)
            #expect(events.resumeOffsets.first == 50_000)
            #expect(events.retries >= 1)
            let totals = events.progress.map(\.totalBytesWritten)
            #expect(totals == totals.sorted())  // counting the resume offset, progress never goes back
            #expect(totals.last == Int64(body.count))
        }
    }

    @Test func errorStatusesNeverBecomeFiles() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let session = try fixture.session()
            let missing = try #require(try await fixture.download(server.url("/missing"), session: session).failure)
            #expect(missing.code == .httpStatus)
            #expect(missing.message.contains("404"))
            #expect(missing.resumeData == nil)
            #expect(try fixture.files(in: .caches).isEmpty)
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    @Test func transientStatusesAreRetriedWithRetryAfter() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"t\"")
            resource.failures = [503, 429, 500]
            resource.retryAfter = "0"
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(events.retries >= 3)
        }
    }

    @Test func retriesRunOut() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"t\"")
            resource.failures = Array(repeating: 503, count: 20)
            server.set("/f", resource)
            let error = try #require(try await fixture.download(server.url("/f"), session: fixture.session()).failure)
            #expect(error.code == .httpStatus)
            #expect(error.message.contains("503"))
            #expect(server.requests.count == 8)
        }
    }

    @Test func digestsAreCheckedAcrossResumes() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"d\"")
            resource.dropAfter = [77_777, 100_000]
            server.set("/f", resource)
            let session = try fixture.session()
            let sha256 = try ExpectedDigest(.sha256, hex: TestData.sha256(body))
            let outcome = try await fixture.download(server.url("/f"), session: session, digest: sha256)
            try fixture.expectExact(outcome, body)
            #expect(try outcome.get().digest == sha256.hex)
        }
    }

    @Test(arguments: [ExpectedDigest.Algorithm.sha1, .md5])
    func otherDigestsOnRequest(algorithm: ExpectedDigest.Algorithm) async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/f", FaultResource(body: Array("hello".utf8), etag: "\"h\""))
            let hex =
                algorithm == .sha1 ? "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d" : "5d41402abc4b2a76b9719d911017c592"
            let outcome = try await fixture.download(
                server.url("/f"), session: fixture.session(), digest: try ExpectedDigest(algorithm, hex: hex))
            #expect(try outcome.get().digest == hex)
        }
    }

    @Test func digestMismatchDeletesTheFile() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/f", FaultResource(body: body, etag: "\"d\""))
            let wrong = try ExpectedDigest(.sha256, hex: String(repeating: "0", count: 64))
            let error = try #require(
                try await fixture.download(server.url("/f"), session: fixture.session(), digest: wrong).failure)
            #expect(error.code == .checksumMismatch)
            #expect(error.resumeData == nil)
            #expect(try fixture.leftovers().isEmpty)
            #expect(try fixture.files(in: .caches).isEmpty)
        }
    }

    @Test func suspendAndResumeContinue() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"p\"")
            resource.stallAfter = [100_000]  // the first request stops sending there, without closing
            server.set("/f", resource)
            var configuration = Fixture.fast
            configuration.stallTimeout = .seconds(30)
            let session = try fixture.session("test", configuration)
            let task = try session.downloadTask(
                with: DownloadRequest(url: try #require(URL(string: server.url("/f"))), destination: .documents))
            task.resume()
            #expect(try await eventually { try fixture.partialSizes() == [100_000] })
            task.suspend()
            #expect(task.state == .suspended)
            task.resume()
            try fixture.expectExact(await task.result(), body)
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.status == 206)
        }
    }
}
