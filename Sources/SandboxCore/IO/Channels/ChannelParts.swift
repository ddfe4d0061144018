/// One delivery of a channel read: the `(done, data, error)` of `dispatch_io_read`'s handler, with
/// the error thrown by the sequence instead.
public struct ChannelReadPart: Sendable {
    /// The bytes read in this part; may be empty in the last part.
    public var data: DataRegions
    /// Whether this is the last part: the length was read, or the file ended.
    public var isDone: Bool
}

/// One delivery of a channel write: how far the write has come.
public struct ChannelWritePart: Sendable, Hashable {
    /// Bytes written by this part's system call.
    public var written: Int
    /// Bytes written by the operation so far.
    public var totalWritten: Int
    /// Bytes still to write.
    public var remaining: Int
    /// Whether this is the last part: everything was written.
    public var isDone: Bool
}

/// The parts of a channel read, as an asynchronous sequence; iterate it once.
///
/// The operation started when it was issued; dropping this sequence (and its iterator) before the
/// last part cancels it.
public struct ChannelReads: AsyncSequence, Sendable {
    public typealias Element = ChannelReadPart
    public typealias Failure = SandboxError

    let token: ConsumerToken<ChannelReadPart>

    public func makeAsyncIterator() -> Iterator { Iterator(token: token) }

    public struct Iterator: AsyncIteratorProtocol {
        let token: ConsumerToken<ChannelReadPart>

        /// The next part, `nil` after the last.
        ///
        /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative or past-the-end offset, or a
        ///   closed channel (``SandboxError/isClosedHandle``); ``SandboxError/Code/interrupted`` when
        ///   the channel was closed immediately or the task cancelled; read errors.
        public mutating func next() async throws(SandboxError) -> ChannelReadPart? {
            try await token.producer.next()
        }
    }

    /// All the parts' bytes, concatenated without copying.
    ///
    /// - Throws: as ``Iterator/next()``.
    public func collect() async throws(SandboxError) -> DataRegions {
        var data = DataRegions()
        var iterator = makeAsyncIterator()
        while let part = try await iterator.next() { data.append(part.data) }
        return data
    }
}

/// The parts of a channel write, as an asynchronous sequence.
///
/// The operation started when it was issued and runs to its end whether or not this sequence is
/// iterated.
public struct ChannelWrites: AsyncSequence, Sendable {
    public typealias Element = ChannelWritePart
    public typealias Failure = SandboxError

    let producer: PooledProducer<ChannelWritePart>

    public func makeAsyncIterator() -> Iterator { Iterator(producer: producer) }

    public struct Iterator: AsyncIteratorProtocol {
        let producer: PooledProducer<ChannelWritePart>

        /// The next part, `nil` after the last.
        ///
        /// - Throws: ``SandboxError/Code/noSpace`` and other write errors;
        ///   ``SandboxError/Code/invalidArgument`` for a negative offset or a closed channel;
        ///   ``SandboxError/Code/interrupted`` when the channel was closed immediately.
        public mutating func next() async throws(SandboxError) -> ChannelWritePart? {
            try await producer.next()
        }
    }

    /// Waits for the write to end.
    ///
    /// - Returns: the number of bytes written.
    /// - Throws: as ``Iterator/next()``.
    @discardableResult
    public func completion() async throws(SandboxError) -> Int {
        var total = 0
        var iterator = makeAsyncIterator()
        while let part = try await iterator.next() { total = part.totalWritten }
        return total
    }
}
