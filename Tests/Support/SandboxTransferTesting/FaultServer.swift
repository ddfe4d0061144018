import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 server on loopback that serves ``FaultResource``s and misbehaves on request:
/// no `Content-Length`, weak or strong validators, 200 to a `Range`, 416, failures with
/// `Retry-After`, redirects, dropped connections at given offsets, slow or stalled bodies.
public final class FaultServer: Sendable {
    struct State: Sendable {
        var resources: [String: FaultResource] = [:]
        var requestCounts: [String: Int] = [:]
        var log: [RecordedRequest] = []
    }

    let state = Mutex(State())
    private let channel: any Channel
    /// The port it listens on (127.0.0.1).
    public let port: Int

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    /// Starts a server on a free loopback port.
    public static func start() async throws -> FaultServer {
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(FaultHandler(server: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = FaultServer(channel: channel, port: channel.localAddress?.port ?? 0)
        box.server.withLock { $0 = server }
        return server
    }

    /// Stops listening (connections in progress are closed with the event loop's next turn).
    public func stop() async throws {
        try await channel.close()
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Serves `resource` at `path` from now on (replacing what was there: a changed resource).
    public func set(_ path: String, _ resource: FaultResource) {
        state.withLock { $0.resources[path] = resource }
    }

    /// Changes the resource at `path` in place.
    public func change(_ path: String, _ change: @Sendable (inout FaultResource) -> Void) {
        state.withLock { state in
            if var resource = state.resources[path] {
                change(&resource)
                state.resources[path] = resource
            }
        }
    }

    /// The requests answered so far, in order.
    public var requests: [RecordedRequest] { state.withLock { $0.log } }

    /// Body bytes sent for `path` in all.
    public func bodyBytesSent(for path: String) -> Int {
        state.withLock { $0.log.filter { $0.path == path }.reduce(0) { $0 + $1.bodyBytesSent } }
    }

    /// Decides the answer to a request and records it; the handler sends it.
    func answer(path: String, headers: HTTPHeaders) -> (plan: ResponsePlan, logIndex: Int) {
        state.withLock { state in
            let index = state.requestCounts[path, default: 0]
            state.requestCounts[path] = index + 1
            let plan = ResponsePlan.make(for: state.resources[path], requestIndex: index, headers: headers)
            state.log.append(
                RecordedRequest(
                    path: path, range: headers.first(name: "range"), ifRange: headers.first(name: "if-range"),
                    acceptEncoding: headers.first(name: "accept-encoding"), status: Int(plan.head.status.code),
                    bodyBytesSent: 0))
            return (plan, state.log.count - 1)
        }
    }

    func recordSent(_ count: Int, at index: Int) {
        state.withLock { $0.log[index].bodyBytesSent += count }
    }
}

/// Lets handlers reach the server, which exists only once the channel is bound.
final class ServerBox: Sendable {
    let server = Mutex<FaultServer?>(nil)
}
