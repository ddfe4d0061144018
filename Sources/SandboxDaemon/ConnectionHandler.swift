import Glibc
import Logging
import NIOCore
import Sandbox
import SandboxTransfer

/// Serves one connection: checks the peer's user, the hello, then handles requests in order.
/// Whatever the client sends, only its own connection is affected: a bad frame gets an error
/// frame and (when the stream cannot be resynchronised) the connection is closed.
struct ConnectionHandler {
    let daemon: Daemon
    let logger: Logger

    func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, credentials: PeerCredentials) async {
        let channel = connection.channel
        do {
            try await connection.executeThenClose { inbound, outbound in
                let (outbox, sink) = AsyncStream.makeStream(
                    of: DaemonMessage.self, bufferingPolicy: .bufferingOldest(ClientHandle.outboxLimit))
                try await withThrowingTaskGroup { group in
                    group.addTask {
                        for await message in outbox {
                            do {
                                try await outbound.write(ByteBuffer(bytes: WireCoding.encode(message)))
                            } catch {
                                return  // the peer is gone: reading ends too
                            }
                        }
                    }
                    await read(inbound, credentials: credentials, sink: sink, channel: channel)
                    sink.finish()
                    try await group.waitForAll()
                }
            }
        } catch {
            logger.debug("connection ended: \(error)")
        }
    }

    private func read(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, credentials: PeerCredentials,
        sink: AsyncStream<DaemonMessage>.Continuation, channel: any Channel
    ) async {
        guard credentials.uid == geteuid() else {
            logger.warning("refused pid \(credentials.pid): user \(credentials.uid), not \(geteuid())")
            sink.yield(
                .failure(
                    TransferError(
                        TransferError.Code(.permissionDenied),
                        "sandboxd runs for user \(geteuid()); user \(credentials.uid) may not use it. Each user has a daemon of their own."
                    )))
            var iterator = inbound.makeAsyncIterator()
            return await discardUnread(&iterator, channel: channel)
        }
        var decoder = FrameDecoder()
        var client: ClientHandle?
        // The app the system bound this connection to (a `bind` frame, sent only before the hello).
        var binding: AppBinding?
        defer {
            if let client { Task { await daemon.disconnected(client) } }
        }
        // One iterator for the whole connection: after an error, the same one drains what is left.
        var iterator = inbound.makeAsyncIterator()
        do {
            while let buffer = try await iterator.next() {
                decoder.append(buffer.readableBytesView)
                while let body = try decoder.nextFrame() {
                    if let client {
                        do throws(TransferError) {
                            await daemon.handle(try WireCoding.decode(ClientMessage.self, from: body), from: client)
                        } catch {
                            sink.yield(.failure(error))  // a message it cannot read: answered, the connection stays
                        }
                        continue
                    }
                    if binding == nil, let requested = try WireCoding.binding(body) {
                        binding = try await daemon.bind(requested, credentials: credentials)
                        sink.yield(.bound)
                        continue
                    }
                    try WireCoding.checkHelloVersion(body)
                    let message = try WireCoding.decode(ClientMessage.self, from: body)
                    guard let hello = message.hello else {
                        throw TransferError(.protocolViolation, "The hello carries no 'hello' object.")
                    }
                    client = try await daemon.admit(
                        hello, binding: binding, credentials: credentials, outbox: sink, channel: channel)
                }
            }
            try decoder.finish()
        } catch let error as TransferError {
            logger.info("pid \(credentials.pid): \(error)")
            sink.yield(.failure(error))
            await discardUnread(&iterator, channel: channel)
        } catch {
            logger.debug("pid \(credentials.pid): reading failed: \(error)")
        }
    }

    /// Reads and drops what the client still sends, for at most a second and 1 MiB, before the
    /// connection closes after an error: closing a Unix socket with unread bytes resets it, and the
    /// client would lose the error frame that says why.
    private func discardUnread(
        _ iterator: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, channel: any Channel
    ) async {
        let deadline = channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        defer { deadline.cancel() }
        var discarded = 0
        do {
            while let buffer = try await iterator.next() {
                discarded += buffer.readableBytes
                if discarded > BackgroundProtocol.maximumFrameSize { break }
            }
        } catch {
            // closed by the deadline or reset by the client: nothing more to read either way
        }
    }
}
