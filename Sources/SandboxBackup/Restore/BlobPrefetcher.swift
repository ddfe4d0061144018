import Foundation
import SandboxCore

/// Reads, authenticates and re-hashes a restore's blobs on threads of its own, in the order the
/// restore writes them, while the restore's thread writes files: loading a blob (a read, AES-GCM,
/// HMAC-SHA256) is most of a restore's CPU time, and this puts it on the second core.
///
/// As many readers as the storage takes requests at once (``RepositoryStorage/preferredConcurrency``:
/// a directory 2, S3 8), so that a remote repository's round trips overlap.
///
/// Bounded: readers stop claiming blobs while ``maximumBytesAhead`` bytes (or ``maximumBlobsAhead``
/// blobs) wait to be taken, so memory stays small however large the snapshot: at most that, plus
/// one blob a reader is loading. The threads are a ``WorkerPool``'s.
final class BlobPrefetcher: Sendable {
    private let pool: WorkerPool<Blobs>
    private let ids: [String]

    /// Starts `readers` threads (`nil`: the storage's ``RepositoryStorage/preferredConcurrency``)
    /// loading `ids`, in order.
    init(
        ids: [String], repository: Repository, readers: Int? = nil, maximumBytesAhead: Int = 16 << 20,
        maximumBlobsAhead: Int = 512
    ) {
        self.ids = ids
        pool = WorkerPool(
            Blobs(count: ids.count, maximumBytesAhead: maximumBytesAhead, maximumBlobsAhead: maximumBlobsAhead),
            threads: ids.isEmpty ? 0 : max(1, readers ?? repository.storage.preferredConcurrency),
            name: "restore-reader"
        ) { [ids] index in
            let result: Result<[UInt8], SandboxError>
            do throws(SandboxError) {
                result = .success(try repository.loadBlob(ids[index]))
            } catch {
                result = .failure(error)
            }
            return (index, result)
        }
    }

    /// The plaintext of the next blob, which must be `id` (the restore takes them in the order
    /// given), checked against its id.
    ///
    /// - Throws: the error of loading it (``Repository/loadBlob(_:)``).
    func next(_ id: String) throws(SandboxError) -> [UInt8] {
        let result = pool.withState(until: \.nextIsSettled) { blobs in
            let index = blobs.taken
            guard index < ids.count, ids[index] == id else {
                preconditionFailure("restore took blob \(id) out of the order it gave")
            }
            return blobs.take()
        }
        return try result.get()
    }

    /// Stops the readers (blobs not taken are dropped) and waits until they have ended.
    func stop() { pool.stop() }
}

/// Which blobs are claimed, loaded and taken: the state of a ``BlobPrefetcher``'s readers.
private struct Blobs: WorkerPoolState {
    let count: Int
    let maximumBytesAhead: Int
    let maximumBlobsAhead: Int
    private var claimed = 0
    private(set) var taken = 0
    private(set) var loaded: [Int: Result<[UInt8], SandboxError>] = [:]
    private var bytesAhead = 0

    init(count: Int, maximumBytesAhead: Int, maximumBlobsAhead: Int) {
        self.count = count
        self.maximumBytesAhead = maximumBytesAhead
        self.maximumBlobsAhead = maximumBlobsAhead
    }

    mutating func next() -> WorkerStep<Int> {
        guard claimed < count else { return .finish }
        guard bytesAhead < maximumBytesAhead, claimed - taken < maximumBlobsAhead else { return .wait }
        claimed += 1
        return .perform(claimed - 1)
    }

    mutating func record(_ outcome: (index: Int, result: Result<[UInt8], SandboxError>)) {
        if case .success(let bytes) = outcome.result { bytesAhead += bytes.count }
        loaded[outcome.index] = outcome.result
    }

    /// Whether the next blob in order is loaded (or there is none: a caller's mistake, caught).
    var nextIsSettled: Bool { taken >= count || loaded[taken] != nil }

    /// Takes the blob loaded next in order (which must be loaded).
    mutating func take() -> Result<[UInt8], SandboxError> {
        guard let result = loaded.removeValue(forKey: taken) else { preconditionFailure("blob \(taken) vanished") }
        taken += 1
        if case .success(let bytes) = result { bytesAhead -= bytes.count }
        return result
    }
}
