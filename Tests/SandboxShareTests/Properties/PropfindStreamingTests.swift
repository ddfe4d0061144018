import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox
import SandboxTesting
import Synchronization
import Testing

@testable import SandboxShare

/// A PROPFIND's body is produced as the client takes it: a client that stops reading a listing of
/// 30,000 members holds the server at one buffer of body and one batch of the folder's listing
/// (about 2,000 names). 30,000, not more: making and removing the files is most of the test, and
/// it runs beside the suites that time the server (in the two full runs with 100,000 files here,
/// an owner request in ConnectionExhaustionTests' burst waited past its client's 15 s; alone, it
/// is answered within 1.3 s).
@Suite struct PropfindStreamingTests {
    static let members = 30_000

    @Test func aClientThatStopsReadingHoldsTheListingAtOneBatch() async throws {
        let scratch = try ScratchDirectory.make(prefix: "share-propfind-stream")
        defer { scratch.remove() }
        let folder = scratch.appending("big")
        #expect(mkdir(folder, 0o755) == 0)
        try Self.makeFiles(in: folder, count: Self.members)
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let logger = Logger(label: "propfind-stream") { _ in SwiftLogNoOpLogHandler() }
        let methods = DAVMethods(
            documents: root, locks: LockManager(), properties: DeadPropertyStore(root: root, logger: logger),
            readOnly: true, maximumUploadSize: nil, allowedAuthorities: ["127.0.0.1:8080"], logger: logger)
        var head = HTTPRequest(method: .propfind, scheme: "http", authority: "127.0.0.1:8080", path: "/big/")
        head.headerFields[.depth] = "1"
        let response = try await methods.propfind(
            try SharePath(requestPath: "/big/"), request: Request(head: head, body: RequestBody(buffer: ByteBuffer())))
        #expect(response.status.code == 207)

        let client = StalledClient()
        let body = response.body
        let transfer = Task { try await body.write(client) }
        // The client takes the first buffer and no more; the server must then wait for it.
        let stalled = await eventually(timeout: .seconds(30)) { client.state.withLock { $0.writes >= 1 } }
        #expect(stalled, "the first buffer of the body was written")
        let buffered = client.state.withLock { $0.bytes.count }
        #expect(
            buffered <= Multistatus.flushSize + 16 * 1024,
            "the server produced \(buffered) bytes for a client that took one buffer")
        // Remove every member now: what the server had not yet listed is gone, so the responses
        // that follow count the members it held when the client stopped.
        try Self.removeFiles(in: folder, count: Self.members)
        client.resume()
        try await transfer.value
        let text = client.state.withLock { String(decoding: $0.bytes, as: UTF8.self) }
        #expect(text.hasSuffix("</D:multistatus>\n"), "the body ends well-formed")
        let responses = text.components(separatedBy: "<D:response>").count - 1
        #expect(responses >= 2, "the folder and some members were answered: \(responses)")
        #expect(
            responses < 10_000,
            "\(responses) responses: the server listed ahead of the client instead of one batch at a time")
    }

    /// `count` empty files `f0`… in `folder`.
    static func makeFiles(in folder: String, count: Int) throws {
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        guard directory >= 0 else { throw TestFailure("open \(folder): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        for index in 0..<count {
            let fd = openat(directory, "f\(index)", O_WRONLY | O_CREAT | O_EXCL, 0o644)
            guard fd >= 0 else { throw TestFailure("create f\(index): \(String(cString: strerror(errno)))") }
            close(fd)
        }
    }

    /// Removes the files ``makeFiles(in:count:)`` made.
    static func removeFiles(in folder: String, count: Int) throws {
        let directory = open(folder, O_RDONLY | O_DIRECTORY)
        guard directory >= 0 else { throw TestFailure("open \(folder): \(String(cString: strerror(errno)))") }
        defer { close(directory) }
        for index in 0..<count where unlinkat(directory, "f\(index)", 0) != 0 {
            throw TestFailure("remove f\(index): \(String(cString: strerror(errno)))")
        }
    }
}

/// A client that takes the first buffer of a body and then stops reading until ``resume()``: its
/// writes wait, as a socket's do when the peer's window is full.
private final class StalledClient: ResponseBodyWriter, Sendable {
    struct State {
        var bytes: [UInt8] = []
        var writes = 0
        var resumed = false
        var waiting: CheckedContinuation<Void, Never>?
    }

    let state = Mutex(State())

    func write(_ buffer: ByteBuffer) async throws {
        let stop = state.withLock { state in
            state.bytes += buffer.readableBytesView
            state.writes += 1
            return !state.resumed
        }
        guard stop else { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.resumed { return true }
                state.waiting = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}

    func resume() {
        let waiting = state.withLock { state in
            state.resumed = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }
}
