import Glibc
import NIOCore
import NIOHTTP1
import Sandbox
import SandboxCore
import SystemPackage

/// Sends a range of an open file on a plain-HTTP connection straight from the page cache to the
/// socket (`sendfile(2)`, NIO's `FileRegion`): no buffer in the share's memory, so memory does not
/// grow with the number of downloads.
///
/// Hummingbird's response writer takes only `ByteBuffer`s, but NIO's HTTP/1 encoder also takes a
/// file region as a body part. So a ``FileRegionAnchor`` sits between Hummingbird's codec and the
/// encoder: the response's head and end go through Hummingbird's writer as for any response, and
/// between them ``send(_:range:path:)`` writes the region from the anchor. A connection's task
/// carries its sender in ``current`` (``EventLoopHTTP1Channel``); a TLS connection has none (TLS
/// encrypts in user space), nor has a protected file's body (decrypted): those are read in chunks
/// (``FileBody``).
///
/// The region is sent from a duplicate of the descriptor that was opened beneath the shared
/// folder and checked — the same open file, never the path opened again — so a file replaced
/// (by a symlink, say) after the check is not what is sent.
///
/// A file that shrinks while it is sent would leave `sendfile` returning 0 and NIO trying again
/// on every wake-up of the event loop; so while a region is being written its file's size is
/// checked every ``sizeCheckInterval``, and the connection is closed once the file no longer holds
/// the region (the `Content-Length` already sent tells the client the body was cut short).
struct FileRegionSender: Sendable {
    /// The sender of the connection whose task this is; `nil` on a TLS connection and outside a
    /// connection's task.
    @TaskLocal static var current: FileRegionSender?

    /// Whether downloads are sent with `sendfile`; `SANDBOX_SHARE_SENDFILE=off` sends every body in
    /// chunks (``FileBody``), so a benchmark can compare the two in the same binary.
    static let isEnabled: Bool = getenv("SANDBOX_SHARE_SENDFILE").map { String(cString: $0) } != "off"

    /// How often the file's size is checked while a region is being written.
    static let sizeCheckInterval = TimeAmount.milliseconds(100)

    /// The connection.
    let channel: any Channel

    /// Writes `range` of `file` to the connection as the response's body and waits until the
    /// socket has taken all of it. The response's head must have been written; its end is the
    /// caller's to write after.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the descriptor cannot be duplicated, or when
    ///   the file shrank below the range while it was being sent; the channel's error when the
    ///   connection closed first. Either way the response is cut short, which the
    ///   `Content-Length` already sent tells the client.
    func send(_ file: OpenFile, range: Range<Int64>, path: SharePath) async throws {
        let copy = try file.withUnsafeDescriptor { fd throws(SandboxError) -> CInt in
            do throws(SandboxError) {
                return try syscall("fcntl", path: path.description) { fcntl(fd.rawValue, F_DUPFD_CLOEXEC, 0) }
            } catch {
                throw .fileSystem(error, path: path, doing: "read")
            }
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: copy)
        defer { closeQuietly(handle) }  // after the write completed: NIO no longer holds the region
        let region = FileRegion(
            fileHandle: handle, readerIndex: Int(range.lowerBound), endIndex: Int(range.upperBound))
        let channel = self.channel
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            Self.write(region, endingAt: range.upperBound, of: file, on: channel, promise: written)
        }
        do {
            try await written.futureResult.get()
        } catch {
            let size: Int64
            do throws(SandboxError) {
                size = try file.size()
            } catch {
                throw SandboxError.fileSystem(error, path: path, doing: "read")
            }
            if size < range.upperBound { throw FileBody.shrank(path, at: size) }
            throw error
        }
    }

    /// Writes and flushes `region` from the anchor of `channel`, checking that `file` still holds
    /// it until the write completes; on the channel's event loop.
    private static func write(
        _ region: FileRegion, endingAt end: Int64, of file: OpenFile, on channel: any Channel,
        promise: EventLoopPromise<Void>
    ) {
        let context: ChannelHandlerContext
        do {
            context = try channel.pipeline.syncOperations.context(handlerType: FileRegionAnchor.self)
        } catch {
            promise.fail(error)  // the connection is closing: its handlers are gone
            return
        }
        let bound = NIOLoopBound(context, eventLoop: channel.eventLoop)
        let check = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: sizeCheckInterval, delay: sizeCheckInterval
        ) { task in
            let holds: Bool
            do throws(SandboxError) {
                holds = try file.size() >= end
            } catch {
                holds = false
            }
            if !holds {
                task.cancel()
                bound.value.close(promise: nil)
            }
        }
        promise.futureResult.whenComplete { _ in check.cancel() }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: promise)
    }
}

/// Where a ``FileRegionSender`` writes into a plain-HTTP connection's pipeline: after
/// Hummingbird's codec, whose parts hold only `ByteBuffer`s, before NIO's HTTP/1 encoder, whose
/// body parts may be file regions. Passes every write through.
final class FileRegionAnchor: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Adds an anchor to `channel`'s pipeline, right after its HTTP/1 encoder; on the channel's
    /// event loop.
    ///
    /// - Throws: the pipeline's error when it has no HTTP/1 encoder.
    static func add(to channel: any Channel) throws {
        let encoder = try channel.pipeline.syncOperations.handler(type: HTTPResponseEncoder.self)
        try channel.pipeline.syncOperations.addHandler(FileRegionAnchor(), position: .after(encoder))
    }
}

/// Closes `handle`; a failure to close a duplicate descriptor of a file opened for reading loses
/// nothing, so it is not reported.
private func closeQuietly(_ handle: NIOFileHandle) {
    do { try handle.close() } catch {}
}
