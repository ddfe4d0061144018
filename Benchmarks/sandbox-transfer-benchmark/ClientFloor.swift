// The floor async-http-client sets under the small-file row: the same GETs, 8 at once, through a
// client configured as a DownloadSession's own, each body written into a file of its own on the
// event loop as it arrives — what the session does per download less everything that is its own
// (checkpoint records, the task machine, events, the move into place, confinement). If this floor
// is already above curl's time, no bookkeeping of ours can bring the session below it.
import AsyncHTTPClient
import Glibc
import NIOCore
import NIOHTTP1
import SandboxTransfer
import Synchronization

/// Writes one response's body into `path` (created, truncated), one `pwrite` per part, on the
/// client's event loop — as the session's `BodyWriter` does.
private final class FileBodyDelegate: HTTPClientResponseDelegate {
    typealias Response = Int

    private let path: String
    /// The descriptor and bytes written; touched only by the client's callbacks, one at a time.
    private let state = Mutex<(descriptor: Int32, written: Int)>((-1, 0))

    init(path: String) { self.path = path }

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        guard head.status == .ok else {
            return task.eventLoop.makeFailedFuture(BenchmarkError("\(path): status \(head.status.code)"))
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return task.eventLoop.makeFailedFuture(BenchmarkError("open \(path): \(errno)")) }
        state.withLock { $0.descriptor = descriptor }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let failed: Int32? = state.withLock { state in
            let written = buffer.withUnsafeReadableBytes { bytes in
                pwrite(state.descriptor, bytes.baseAddress, bytes.count, off_t(state.written))
            }
            guard written == buffer.readableBytes else { return errno }
            state.written += written
            return nil
        }
        if let failed { return task.eventLoop.makeFailedFuture(BenchmarkError("pwrite \(path): \(failed)")) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        try state.withLock { state in
            guard close(state.descriptor) == 0 else { throw BenchmarkError("close \(path): \(errno)") }
            state.descriptor = -1
            return state.written
        }
    }

    func didReceiveError(task: HTTPClient.Task<Int>, _ error: any Error) {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = -1
        }
    }
}

/// Downloads every URL (each `size` bytes) into `folder` (`s<index>.bin`), `concurrency` at once, each of `concurrency`
/// Swift tasks sending its next request when the last one ended (as the session's runs do), on a
/// client set up as a session's own for `session` (`HTTPClient.forDownloads`): its connect and stall
/// timeouts and redirect limit, no decompression, no tracing, HTTP/1.1 keep-alive with the
/// connection pool's defaults.
func downloadWithClientAlone(
    _ urls: [String], of size: Int, into folder: String, concurrency: Int,
    session: DownloadSession.Configuration = .standard
) async throws {
    var settings = HTTPClient.Configuration(
        redirectConfiguration: .follow(max: session.maximumRedirects, allowCycles: false),
        timeout: .init(connect: TimeAmount(session.connectTimeout), read: TimeAmount(session.stallTimeout)),
        decompression: .disabled)
    settings.tracing.tracer = nil
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    do {
        let next = NextIndex()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while true {
                        let index = next.take()
                        guard index < urls.count else { return }
                        let request = try HTTPClient.Request(url: urls[index])
                        let delegate = FileBodyDelegate(path: "\(folder)/s\(index).bin")
                        let written = try await client.execute(request: request, delegate: delegate).get()
                        guard written == size else { throw BenchmarkError("\(urls[index]): \(written) bytes") }
                    }
                }
            }
            try await group.waitForAll()
        }
    } catch {
        try await client.shutdown()
        throw error
    }
    try await client.shutdown()
}

/// The next URL's index, shared by the downloading tasks.
private final class NextIndex: Sendable {
    private let value = Atomic(0)

    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

extension TimeAmount {
    /// `duration`, to the nanosecond.
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
