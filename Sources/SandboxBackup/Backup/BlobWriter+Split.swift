import SandboxCore

extension BlobWriter {
    /// Stores `bytes` (a tree, a keychain record) as content-defined chunks of `chunking`, as tree
    /// blobs, through the writers: how a backup and a copy store what names other blobs.
    ///
    /// - Returns: the chunks' ids, in order.
    /// - Throws: a writer's failure.
    func storeSplit(_ bytes: [UInt8], chunking: ChunkingParameters) throws(SandboxError) -> [String] {
        var stream = SplitStream(writer: self, chunking: chunking)
        try bytes.withBytes { (all) throws(SandboxError) in try stream.append(all) }
        return try stream.finish()
    }
}

/// Bytes made piece by piece (a tree as its nodes are encoded) stored as ``BlobWriter``'s tree
/// blobs, each content-defined chunk handed to the writers as soon as it is cut: what is held is
/// the chunk being cut, not the whole. The chunks are those ``BlobWriter/storeSplit(_:chunking:)``
/// makes of the same bytes held whole (it is this stream, fed once).
struct SplitStream {
    private let writer: BlobWriter
    private var cdc: FastCDC
    private var pending: [UInt8] = []
    private var tickets: [Int] = []

    init(writer: BlobWriter, chunking: ChunkingParameters) {
        self.writer = writer
        cdc = FastCDC(parameters: chunking)
    }

    /// Adds `bytes` to the stream, queueing each chunk they end.
    ///
    /// - Throws: a writer's failure.
    mutating func append(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) {
        var rest = bytes
        while !rest.isEmpty {
            let (count, ends) = cdc.consume(rest)
            let piece = UnsafeRawBufferPointer(rebasing: rest[0..<count])
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            guard ends else {
                pending.append(contentsOf: piece)
                continue
            }
            if pending.isEmpty {
                tickets.append(try writer.enqueue(piece, kind: .tree))  // a whole chunk in `bytes`: no copy
            } else {
                pending.append(contentsOf: piece)
                try enqueuePending()
            }
        }
    }

    /// Queues the last chunk and waits for every chunk's id.
    ///
    /// - Returns: the chunks' ids, in order (none for an empty stream).
    /// - Throws: a writer's failure.
    consuming func finish() throws(SandboxError) -> [String] {
        if !pending.isEmpty { try enqueuePending() }
        return try writer.ids(for: tickets)
    }

    private mutating func enqueuePending() throws(SandboxError) {
        let writer = writer
        let ticket = try pending.withBytes { (chunk) throws(SandboxError) in try writer.enqueue(chunk, kind: .tree) }
        tickets.append(ticket)
        pending.removeAll(keepingCapacity: true)
    }
}
