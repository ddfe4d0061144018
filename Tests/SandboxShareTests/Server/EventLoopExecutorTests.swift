import Dispatch
import Hummingbird
import NIOCore
import NIOPosix
import Sandbox
import Synchronization
import Testing

@testable import SandboxShare

/// Each connection's task runs on its channel's event loop (no thread hand-off per request), and
/// the requests that do heavy synchronous work leave that loop free for the other connections.
@Suite struct EventLoopExecutorTests {
    /// Before and after every kind of suspension (a yield, a read on the I/O engine's threads), a
    /// task preferring a loop's executor runs on that loop.
    @Test func aConnectionsTaskRunsOnItsEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let seen = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            var seen = [loop.inEventLoop]
            await Task.yield()
            seen.append(loop.inEventLoop)
            let engineThread = try? await IOEngine.shared.run { loop.inEventLoop }
            seen.append(engineThread == false)
            seen.append(loop.inEventLoop)
            return seen
        }
        #expect(seen == [true, true, true, true])
        try await group.shutdownGracefully()
    }

    /// A heavy request runs on the I/O engine's threads: while it blocks one, the connection's
    /// event loop still runs other work (here, the closure that lets it finish). Were it on the
    /// loop, the closure could not run and the wait would time out.
    @Test func aBlockingRequestLeavesTheEventLoopFree() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let (onLoop, loopRanMeanwhile, thread) = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            await IOEngine.shared.withTaskExecutor {
                let done = DispatchSemaphore(value: 0)
                loop.execute { done.signal() }
                // A stand-in for a long system call: this thread waits for the loop to run the closure.
                return (loop.inEventLoop, done.wait(timeout: .now() + 120) == .success, ThreadName.current())
            }
        }
        #expect(!onLoop)
        #expect(loopRanMeanwhile)
        #expect(thread == "sandbox-io")
        try await group.shutdownGracefully()
    }

    /// The body of a heavy request (a PROPFIND's is built as it is sent) is written from the
    /// engine's threads too, although the connection's task writes it from its event loop.
    @Test func aHeavyRequestsBodyIsWrittenOnTheEngine() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let seen = ThreadsSeen()
        let body = ResponseBody(contentLength: 2) { writer in
            seen.record(ThreadName.current() ?? "")
            try await writer.write(ByteBuffer(string: "ok"))
            seen.record(ThreadName.current() ?? "")
            try await writer.finish(nil)
        }
        let moved = body.writtenOnEngine()
        #expect(moved.contentLength == 2)
        let written = try await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
            let writer = CollectingWriter()
            try await moved.write(writer)
            return (writer.sink.bytes, writer.sink.finished)
        }
        #expect(written.0 == Array("ok".utf8) && written.1)
        #expect(seen.values == ["sandbox-io", "sandbox-io"])
        try await group.shutdownGracefully()
    }

    /// Only WebDAV's GET, HEAD and OPTIONS (an open, an fstat and a read of cached bytes) run on the
    /// event loop; listings, uploads, copies, locks and the web page run on the I/O engine's threads.
    @Test func onlyQuickMethodsRunOnTheEventLoop() {
        func request(_ method: HTTPRequest.Method, _ path: String, accept: String? = nil) -> Request {
            var head = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: path)
            if let accept { head.headerFields[.accept] = accept }
            return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        }
        for method: HTTPRequest.Method in [.get, .head, .options] {
            #expect(ShareResponder.isQuick(request(method, "/a.txt")), "\(method)")
        }
        for method: HTTPRequest.Method in [
            .put, .delete, .mkcol, .copy, .move, .propfind, .proppatch, .lock, .unlock, .post,
        ] {
            #expect(!ShareResponder.isQuick(request(method, "/a.txt")), "\(method)")
        }
        #expect(!ShareResponder.isQuick(request(.get, "/.sandbox/zip?path=/")))
        #expect(!ShareResponder.isQuick(request(.get, "/", accept: "text/html")))
    }
}

/// The thread each step of a body ran on.
private final class ThreadsSeen: Sendable {
    private let state = Mutex<[String]>([])
    func record(_ thread: String) { state.withLock { $0.append(thread) } }
    var values: [String] { state.withLock { $0 } }
}
