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
    /// Shared by every connection: requests wait for a place before they are handed on.
    let window: RequestWindow

    /// Serves `connection` within what `slot` allows: the hello's deadline and size, the bytes of
    /// frames being received, the bytes of answers queued.
    func serve(
        _ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, credentials: PeerCredentials, slot: ConnectionSlot
    ) async {
        let channel = connection.channel
        do {
            try await connection.executeThenClose { inbound, outbound in
                let outbox = Outbox(slot: slot)
                try await withThrowingTaskGroup { group in
                    group.addTask {
                        for await frame in outbox.frames {
                            do {
                                try await outbound.write(ByteBuffer(bytes: frame))
                            } catch {
                                return  // the peer is gone: reading ends too
                            }
                            outbox.written(frame.count)
                        }
                    }
                    await read(inbound, credentials: credentials, slot: slot, outbox: outbox, channel: channel)
                    outbox.finish()
                    try await group.waitForAll()
                }
            }
        } catch {
            logger.debug("connection ended: \(error)")
        }
    }

    private func read(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, credentials: PeerCredentials, slot: ConnectionSlot,
        outbox: Outbox, channel: any Channel
    ) async {
        guard credentials.uid == geteuid() else {
            logger.warning("refused pid \(credentials.pid): user \(credentials.uid), not \(geteuid())")
            refuse(
                SandboxError(
                    SandboxError.Code.permissionDenied,
                    "sandboxd runs for user \(geteuid()); user \(credentials.uid) may not use it. Each user has a daemon of their own."
                ), outbox: outbox, channel: channel)
            var iterator = inbound.makeAsyncIterator()
            return await discardUnread(&iterator, channel: channel)
        }
        // Until the client is admitted: a small frame, and a deadline.
        var decoder = FrameDecoder(maximumSize: slot.limits.helloFrameMaximum)
        let helloDeadline = slot.helloDeadline(on: channel)
        defer { helloDeadline.cancel() }
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
                        await window.enter()
                        do throws(SandboxError) {
                            await daemon.handle(try WireCoding.decode(ClientMessage.self, from: body), from: client)
                        } catch {
                            client.send(.failure(error))  // a message it cannot read: answered, the connection stays
                        }
                        continue
                    }
                    if binding == nil, let requested = try WireCoding.binding(body) {
                        // The hello's deadline still runs: a bound connection kept unused is closed.
                        binding = try await daemon.bind(requested, credentials: credentials)
                        if !outbox.send(.bound) { channel.close(promise: nil) }
                        continue
                    }
                    try WireCoding.checkHelloVersion(body)
                    let message = try WireCoding.decode(ClientMessage.self, from: body)
                    guard let hello = message.hello else {
                        throw SandboxError(.protocolViolation, "The hello carries no 'hello' object.")
                    }
                    client = try await daemon.admit(
                        hello, binding: binding, credentials: credentials, outbox: outbox, channel: channel)
                    helloDeadline.cancel()
                    decoder.maximumSize = BackgroundProtocol.maximumFrameSize
                }
                try slot.receiving(decoder.pendingByteCount)
            }
            try decoder.finish()
        } catch let error as SandboxError {
            logger.info("pid \(credentials.pid): \(error)")
            refuse(error, outbox: outbox, channel: channel)
            await discardUnread(&iterator, channel: channel)
        } catch {
            logger.debug("pid \(credentials.pid): reading failed: \(error)")
        }
    }

    /// Answers `error` before the connection closes, or closes it at once when even that answer
    /// is past the limits.
    private func refuse(_ error: SandboxError, outbox: Outbox, channel: any Channel) {
        if !outbox.send(.failure(error)) { channel.close(promise: nil) }
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
