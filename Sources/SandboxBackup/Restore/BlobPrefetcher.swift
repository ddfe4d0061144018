import Foundation
import SandboxCore

/// Reads, authenticates and re-hashes a restore's blobs on threads of its own, in the order the
/// restore writes them, while the restore's thread writes files: loading a blob (a read, AES-GCM,
/// HMAC-SHA256) is most of a restore's CPU time, and this puts it on the second core.
///
/// Bounded: readers stop claiming blobs while ``maximumBytesAhead`` bytes (or ``maximumBlobsAhead``
/// blobs) wait to be taken, so memory stays small however large the snapshot.
///
/// The waits are on an `NSCondition`, on the restore's thread (which only waits for these readers,
/// never for Swift's cooperative pool) and on the readers' own threads.
final class BlobPrefetcher: @unchecked Sendable {
    // State guarded by `condition`.
    private let condition = NSCondition()
    private var claimed = 0
    private var taken = 0
    private var loaded: [Int: Result<[UInt8], SandboxError>] = [:]
    private var bytesAhead = 0
    private var stopping = false
    private var running = 0

    private let ids: [String]
    let repository: Repository
    let maximumBytesAhead: Int
    let maximumBlobsAhead: Int

    /// Starts `readers` threads loading `ids`, in order.
    init(
        ids: [String], repository: Repository, readers: Int = 2, maximumBytesAhead: Int = 16 << 20,
        maximumBlobsAhead: Int = 512
    ) {
        self.ids = ids
        self.repository = repository
        self.maximumBytesAhead = maximumBytesAhead
        self.maximumBlobsAhead = maximumBlobsAhead
        running = ids.isEmpty ? 0 : max(1, readers)
        for index in 0..<running {
            let thread = Thread { [self] in work() }
            thread.name = "restore-reader-\(index)"
            thread.start()
        }
    }

    /// The plaintext of the next blob, which must be `id` (the restore takes them in the order
    /// given), checked against its id.
    ///
    /// - Throws: the error of loading it (``Repository/loadBlob(_:)``).
    func next(_ id: String) throws(SandboxError) -> [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        let index = taken
        guard index < ids.count, ids[index] == id else {
            preconditionFailure("restore took blob \(id) out of the order it gave")
        }
        while loaded[index] == nil { condition.wait() }
        taken += 1
        let result = loaded.removeValue(forKey: index)
        condition.broadcast()
        switch result {
        case .success(let bytes):
            bytesAhead -= bytes.count
            return bytes
        case .failure(let error): throw error
        case nil: preconditionFailure("blob \(index) vanished")
        }
    }

    /// Stops the readers (blobs not taken are dropped) and waits until they have ended.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while !stopping && claimed < ids.count
                && (bytesAhead >= maximumBytesAhead || claimed - taken >= maximumBlobsAhead)
            {
                condition.wait()
            }
            if stopping || claimed == ids.count {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = claimed
            claimed += 1
            condition.unlock()
            let result: Result<[UInt8], SandboxError>
            do throws(SandboxError) {
                result = .success(try repository.loadBlob(ids[index]))
            } catch {
                result = .failure(error)
            }
            condition.lock()
            if case .success(let bytes) = result { bytesAhead += bytes.count }
            loaded[index] = result
            condition.broadcast()
            condition.unlock()
        }
    }
}
