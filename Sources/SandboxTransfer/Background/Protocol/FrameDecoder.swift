import SandboxStore

/// Splits a byte stream into frames: a 4-byte big-endian length, then the body.
///
/// A pure value (no I/O), fed with ``append(_:)`` as bytes arrive. The declared length is checked
/// against ``maximumSize`` as soon as its four bytes are in, before a body is collected, so a
/// hostile length costs nothing; at most one frame's bytes (plus what arrived in the same read) are
/// buffered.
package struct FrameDecoder: Sendable {
    /// The largest body accepted (`sandboxd` raises it once a connection is admitted).
    package var maximumSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    package init(maximumSize: Int = BackgroundProtocol.maximumFrameSize) {
        self.maximumSize = maximumSize
    }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received that no complete frame holds yet.
    package var pendingByteCount: Int { buffer.count - start }

    /// The next complete frame's body, `nil` when more bytes are needed.
    ///
    /// - Throws: `too-large` when the declared length exceeds ``maximumSize``
    ///   (the connection cannot be resynchronised: close it).
    package mutating func nextFrame() throws(SandboxError) -> [UInt8]? {
        guard pendingByteCount >= 4 else { return nil }
        let length = buffer[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumSize else {
            throw SandboxError(
                .tooLarge,
                "A frame declares \(length) bytes, more than the \(maximumSize) allowed; the connection is closed.")
        }
        guard pendingByteCount >= 4 + length else { return nil }
        let body = Array(buffer[start + 4..<start + 4 + length])
        start += 4 + length
        return body
    }

    /// Throws when the stream ended inside a frame.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolViolation`` naming how many bytes were left over.
    package func finish() throws(SandboxError) {
        guard pendingByteCount > 0 else { return }
        throw SandboxError(
            .protocolViolation, "The connection ended inside a frame (\(pendingByteCount) bytes of it arrived).")
    }
}

/// Frames a body for ``FrameDecoder``.
package enum FrameEncoder {
    /// The 4-byte big-endian length of `body`, then `body`.
    ///
    /// - Throws: `too-large` when `body` exceeds `maximumSize`.
    package static func frame(
        _ body: [UInt8], maximumSize: Int = BackgroundProtocol.maximumFrameSize
    ) throws(SandboxError) -> [UInt8] {
        guard body.count <= maximumSize else {
            throw SandboxError(
                .tooLarge, "A message of \(body.count) bytes exceeds the protocol's \(maximumSize)-byte limit.")
        }
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + body
    }
}
