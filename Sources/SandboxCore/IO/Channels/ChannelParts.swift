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
    /// Each delivery: some bytes, and whether it is the last.
    public typealias Element = ChannelReadPart
    /// The error the parts end with, when the read fails.
    public typealias Failure = SandboxError

    /// Where the parts come from.
    enum Source: Sendable {
        /// A running operation.
        case producer(ConsumerToken<ChannelReadPart>)
        /// An operation already done, served from the page cache when it was issued.
        case ready(ChannelReadPart)
    }

    let source: Source

    init(token: ConsumerToken<ChannelReadPart>) {
        source = .producer(token)
    }

    init(ready part: ChannelReadPart) {
        source = .ready(part)
    }

    /// The iterator of the parts; make one only.
    public func makeAsyncIterator() -> Iterator { Iterator(source: source) }

    /// Delivers the parts of one read, in order.
    public struct Iterator: AsyncIteratorProtocol {
        var source: Source?

        /// The next part, `nil` after the last.
        ///
        /// - Throws: ``SandboxError/Code/invalidArgument`` for a negative or past-the-end offset, or a
        ///   ``SandboxError/Code/closed`` for a closed channel; ``SandboxError/Code/interrupted`` when
        ///   the channel was closed immediately or the task cancelled; read errors.
        public mutating func next() async throws(SandboxError) -> ChannelReadPart? {
            switch source {
            case .producer(let token):
                return try await token.producer.next()
            case .ready(let part):
                source = nil
                return part
            case nil:
                return nil
            }
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
    /// Each delivery: how far the write has come.
    public typealias Element = ChannelWritePart
    /// The error the parts end with, when the write fails.
    public typealias Failure = SandboxError

    let producer: PooledProducer<ChannelWritePart>

    /// The iterator of the parts.
    public func makeAsyncIterator() -> Iterator { Iterator(producer: producer) }

    /// Delivers the parts of one write, in order.
    public struct Iterator: AsyncIteratorProtocol {
        let producer: PooledProducer<ChannelWritePart>

        /// The next part, `nil` after the last.
        ///
        /// - Throws: ``SandboxError/Code/noSpace`` and other write errors;
        ///   ``SandboxError/Code/invalidArgument`` for a negative offset; ``SandboxError/Code/closed`` for a closed channel;
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
