import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Servers that break HTTP in ways that could splice wrong bytes into a file: every one ends with
/// the right bytes (SHA-256) or a precise error, never a file with wrong bytes.
@Suite struct HostileServerTests {
    static let size = 300_000
    let body = TestData.bytes(HostileServerTests.size, seed: 21)
    let other = TestData.bytes(HostileServerTests.size, seed: 22)
    static let modified = "Tue, 15 Nov 1994 08:12:31 GMT"

    /// `bytes first-last/total` and `Content-Length`, strong ETag `"s"`, for the bytes of `body`
    /// from `first` to `end` (exclusive).
    static func partial(
        _ body: [UInt8], from first: Int, to end: Int, extraHeaders: [(String, String)] = []
    ) -> FaultAnswer {
        FaultAnswer(
            status: 206,
            headers: [
                ("ETag", "\"s\""), ("Content-Range", "bytes \(first)-\(end - 1)/\(body.count)"),
                ("Content-Length", "\(end - first)"),
            ] + extraHeaders,
            body: Array(body[first..<end]))
    }

    /// `body` with a strong ETag, dropped after `drop` bytes, its range requests answered by
    /// `answer` (given the range's start and `body`).
    func resource(
        droppingAfter drop: Int = 100_000, answeringRanges answer: @escaping @Sendable (Int, [UInt8]) -> FaultAnswer?
    ) -> FaultResource {
        var resource = FaultResource(body: body, etag: "\"s\"")
        resource.dropAfter = [drop]
        let whole = body
        resource.rangeAnswer = { start, _ in start < whole.count ? answer(start, whole) : nil }
        return resource
    }

    /// A server that ignores `Accept-Encoding: identity`, sends gzip with a weak ETag and a
    /// Last-Modified, drops, then answers a range with identity bytes: the file is the coded body,
    /// never coded bytes followed by identity ones, and no `If-Range` carries a date.
    @Test func aCodedBodyIsNeverResumedInto() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let identity = other
            var resource = FaultResource(body: body, etag: "W/\"gz\"", lastModified: Self.modified)
            resource.contentEncoding = "gzip"
            resource.sendsContentLength = false  // as nginx sends gzip: chunked
            resource.dropAfter = [64_000]
            resource.rangeAnswer = { start, _ in
                FaultAnswer(
                    status: 206,
                    headers: [
                        ("ETag", "W/\"gz\""), ("Last-Modified", Self.modified),
                        ("Content-Range", "bytes \(start)-\(identity.count - 1)/\(identity.count)"),
                        ("Content-Length", "\(identity.count - start)"),
                    ], body: Array(identity[start...]))
            }
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(server.requests.allSatisfy { $0.range == nil && $0.ifRange == nil })
            #expect(events.restarts == [.noValidator])
        }
    }

    /// An identity download resumed with a range the server answers content-coded: the offsets are
    /// not the file's, so it starts over.
    @Test func aCodedPartialAnswerRestarts() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let coded = other
            let resource = self.resource { start, _ in
                Self.partial(coded, from: start, to: coded.count, extraHeaders: [("Content-Encoding", "gzip")])
            }
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(events.restarts == [.contentCoded])
            #expect(server.requests.last?.range == nil)
        }
    }

    /// A 200 to a range request is the whole representation whatever `Content-Range` it carries:
    /// never a continuation.
    @Test func anOKWithAContentRangeIsNeverAContinuation() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let resource = self.resource { start, whole in
                FaultAnswer(
                    status: 200,
                    headers: [
                        ("ETag", "\"s\""), ("Content-Range", "bytes \(start)-\(whole.count - 1)/\(whole.count)"),
                        ("Content-Length", "\(whole.count)"),
                    ],
                    body: whole)
            }
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(events.resumeOffsets.isEmpty)
            #expect(events.restarts == [.contentRangeMismatch])
        }
    }

    /// A server that answers each range with less than asked (legal): every attempt progresses,
    /// so a budget of three attempts is enough for eight answers.
    @Test func shortPartialAnswersContinue() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let resource = self.resource(droppingAfter: 40_000) { start, whole in
                Self.partial(whole, from: start, to: min(whole.count, start + 40_000))
            }
            let events = try await fixture.downloadExactly(resource, from: server, Self.threeAttempts)
            #expect(server.requests.count == 8)
            #expect(events.retries == 1)  // the drop; short answers are not failures
            #expect(events.restarts.isEmpty)
        }
    }

    /// Every attempt drops, but after new bytes: the budget counts attempts without progress.
    @Test func dropsThatProgressDoNotExhaustTheBudget() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: body, etag: "\"s\"")
            resource.chunkSize = 8_192
            resource.dropAfter = Array(repeating: 40_000, count: 8)
            let events = try await fixture.downloadExactly(resource, from: server, Self.threeAttempts)
            #expect(events.retries >= 7)
            #expect(events.restarts.isEmpty)
        }
    }

    /// A 206 that cannot be read as a continuation of our offset: starts over (a request without
    /// `Range`) instead of retrying the same request.
    @Test(arguments: PartialAnswerFault.allCases)
    func unusablePartialAnswersRestart(fault: PartialAnswerFault) async throws {
        try await Fixture.withFaultServer { server, fixture in
            let resource = self.resource { start, whole in fault.answer(whole, from: start) }
            let events = try await fixture.downloadExactly(resource, from: server, Self.threeAttempts)
            #expect(events.restarts == [.contentRangeMismatch])
            #expect(server.requests.last?.range == nil)
        }
    }

    /// A 206 whose body runs past its `Content-Range` (chunked, so the HTTP framing does not stop
    /// it): the bytes past the range are never written.
    @Test func bytesPastTheRangeAreNeverWritten() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let resource = self.resource { start, whole in
                let end = min(whole.count, start + 10_000)
                return FaultAnswer(
                    status: 206,
                    headers: [("ETag", "\"s\""), ("Content-Range", "bytes \(start)-\(end - 1)/\(whole.count)")],
                    body: Array(whole[start..<end]) + Array(repeating: 0xEE, count: 5_000))
            }
            let events = try await fixture.downloadExactly(resource, from: server)
            #expect(events.restarts.isEmpty)
        }
    }

    static var threeAttempts: DownloadSession.Configuration {
        var configuration = Fixture.fast
        configuration.retryPolicy = RetryPolicy(
            maximumAttempts: 3, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20))
        return configuration
    }
}

/// Ways a 206 can fail to continue our offset.
enum PartialAnswerFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case noContentRange
    case multipart
    case otherStart
    case otherTotal
    case contentLengthDisagrees

    var testDescription: String { rawValue }

    func answer(_ body: [UInt8], from start: Int) -> FaultAnswer {
        let tail = Array(body[start...])
        switch self {
        case .noContentRange:
            return FaultAnswer(
                status: 206, headers: [("ETag", "\"s\""), ("Content-Length", "\(tail.count)")], body: tail)
        case .multipart:
            let part =
                "--B\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes \(start)-\(body.count - 1)/\(body.count)\r\n\r\n"
            let bytes = Array(part.utf8) + tail + Array("\r\n--B--\r\n".utf8)
            return FaultAnswer(
                status: 206,
                headers: [
                    ("ETag", "\"s\""), ("Content-Type", "multipart/byteranges; boundary=B"),
                    ("Content-Length", "\(bytes.count)"),
                ],
                body: bytes)
        case .otherStart:
            let first = start - 1_000
            return HostileServerTests.partial(body, from: first, to: body.count)
        case .otherTotal:
            return FaultAnswer(
                status: 206,
                headers: [
                    ("ETag", "\"s\""), ("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count + 1_000)"),
                    ("Content-Length", "\(tail.count)"),
                ],
                body: tail)
        case .contentLengthDisagrees:
            let short = Array(tail.dropLast(1_000))
            return FaultAnswer(
                status: 206,
                headers: [
                    ("ETag", "\"s\""), ("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)"),
                    ("Content-Length", "\(short.count)"),
                ],
                body: short)
        }
    }
}
