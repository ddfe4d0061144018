import SandboxCore

extension BlobWriter {
    /// Stores `bytes` (a tree, a keychain record) as content-defined chunks of `chunking`, as tree
    /// blobs, through the writers: how a backup and a copy store what names other blobs.
    ///
    /// - Returns: the chunks' ids, in order.
    /// - Throws: a writer's failure.
    func storeSplit(_ bytes: [UInt8], chunking: ChunkingParameters) throws(SandboxError) -> [String] {
        var tickets: [Int] = []
        var cdc = FastCDC(parameters: chunking)
        try bytes.withBytes { (all) throws(SandboxError) in
            var start = 0
            while start < all.count {
                var end = start
                var ends = false
                while !ends && end < all.count {
                    let (count, cut) = cdc.consume(UnsafeRawBufferPointer(rebasing: all[end...]))
                    end += count
                    ends = cut
                }
                tickets.append(try enqueue(UnsafeRawBufferPointer(rebasing: all[start..<end]), kind: .tree))
                start = end
            }
        }
        return try ids(for: tickets)
    }
}
