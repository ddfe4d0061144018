import NIOCore
import Sandbox

extension ContentChecksums {
    /// An upload's hashing, kept off the task that receives its body: the pieces are gathered into
    /// batches of ``batchSize`` and each batch is hashed on the I/O engine while the next one
    /// arrives, one batch at a time (so at most two batches are held). Hashed in line, SHA-1 and
    /// MD5 (about 0.5 s of a core for 256 MiB) added their time to the upload's: a PUT of 256 MiB
    /// took 1.06 s against 0.44 s without them (sandbox-share-benchmark, BENCHMARKS.md).
    struct UploadHashing {
        /// The bytes gathered before a batch is hashed: a thread hop per MiB costs nothing next
        /// to the 1.8 ms that hashing it takes.
        static let batchSize = 1 << 20

        private var hasher = Hasher()
        private var batch: [ByteBuffer] = []
        private var batched = 0
        private var inFlight = false

        init() {}

        /// Adds `buffer`, the next piece of the body, hashing a full batch in a task of `group`
        /// once the previous one is done.
        ///
        /// - Throws: the I/O engine's refusal (it stopped; the request was cancelled).
        mutating func add(_ buffer: ByteBuffer, in group: inout ThrowingTaskGroup<Hasher, any Error>) async throws {
            batch.append(buffer)
            batched += buffer.readableBytes
            guard batched >= Self.batchSize else { return }
            try await settle(&group)
            let (state, pieces) = (hasher, batch)
            batch = []
            batched = 0
            group.addTask {
                try await IOEngine.shared.run { () -> Hasher in
                    var hasher = state
                    for piece in pieces { hasher.update(piece) }
                    return hasher
                }
            }
            inFlight = true
        }

        /// The checksums of everything added, once the batch in flight is done.
        ///
        /// - Throws: as ``add(_:in:)``.
        mutating func finish(_ group: inout ThrowingTaskGroup<Hasher, any Error>) async throws -> ContentChecksums {
            try await settle(&group)
            for piece in batch { hasher.update(piece) }
            batch = []
            return hasher.finalize()
        }

        private mutating func settle(_ group: inout ThrowingTaskGroup<Hasher, any Error>) async throws {
            guard inFlight else { return }
            inFlight = false
            if let hashed = try await group.next() { hasher = hashed }
        }
    }
}
