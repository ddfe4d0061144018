/// Entry points for the `daemon-frames` fuzz target (`Fuzz/`, FUZZING.md) into sandboxd's wire
/// protocol, whose types are `package`: the frame decoder and the message readers exactly as the
/// daemon and its clients use them. Not for apps.
@_spi(Fuzzing) public enum BackgroundProtocolFuzzEntryPoints {
    /// The frame bodies `bytes` holds when they arrive in reads of `readSizes` bytes (cycled; sizes
    /// below 1 count as 1), decoded as a connection does, then checked to end on a frame boundary.
    ///
    /// - Throws: `too-large` for a frame over `maximumSize`;
    ///   ``SandboxCore/SandboxError/Code/protocolViolation`` when the bytes end inside a frame.
    public static func frames(
        in bytes: [UInt8], readSizes: [Int], maximumSize: Int
    ) throws(SandboxError) -> [[UInt8]] {
        var decoder = FrameDecoder(maximumSize: maximumSize)
        var frames: [[UInt8]] = []
        var offset = 0
        var read = 0
        while offset < bytes.count {
            let size = readSizes.isEmpty ? bytes.count : max(1, readSizes[read % readSizes.count])
            let end = min(bytes.count, offset + size)
            decoder.append(bytes[offset..<end])
            offset = end
            read += 1
            while let frame = try decoder.nextFrame() { frames.append(frame) }
        }
        try decoder.finish()
        return frames
    }

    /// `body` framed (its 4-byte big-endian length first).
    ///
    /// - Throws: `too-large` when it exceeds `maximumSize`.
    public static func frame(_ body: [UInt8], maximumSize: Int) throws(SandboxError) -> [UInt8] {
        try FrameEncoder.frame(body, maximumSize: maximumSize)
    }

    /// A connection's first frame read as sandboxd reads it (the version, then the hello); the
    /// message encoded again.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolVersion`` for another or no version;
    ///   ``SandboxCore/SandboxError/Code/protocolViolation`` for anything else that is not a hello.
    public static func readHello(_ body: [UInt8]) throws(SandboxError) -> [UInt8] {
        try WireCoding.checkHelloVersion(body)
        let message = try WireCoding.decode(ClientMessage.self, from: body)
        guard message.hello != nil else {
            throw SandboxError(.protocolViolation, "The hello carries no 'hello' object.")
        }
        return try Self.body(of: message)
    }

    /// A later frame read as a client's request; the message encoded again.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolViolation`` when it is not a client message.
    public static func readClientMessage(_ body: [UInt8]) throws(SandboxError) -> [UInt8] {
        try self.body(of: try WireCoding.decode(ClientMessage.self, from: body))
    }

    /// A frame read as the daemon's message to a client; the message encoded again.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protocolViolation`` when it is not a daemon message.
    public static func readDaemonMessage(_ body: [UInt8]) throws(SandboxError) -> [UInt8] {
        try self.body(of: try WireCoding.decode(DaemonMessage.self, from: body))
    }

    private static func body(of message: some Encodable) throws(SandboxError) -> [UInt8] {
        Array(try WireCoding.encode(message).dropFirst(4))
    }
}
