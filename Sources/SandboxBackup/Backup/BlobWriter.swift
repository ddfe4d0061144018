import Foundation
import SandboxCore

/// Seals and stores blobs on threads of its own while the backup's thread reads, chunks and
/// hashes: the cheapest way to use a second core (a first backup spent about half its time
/// sealing and writing). Memory in flight is bounded (``maximumBytesInFlight``): ``enqueue(_:id:)``
/// waits when the writers are behind.
///
/// The waits are on an `NSCondition`, on the backup's thread (which only waits for these
/// writers, never for Swift's cooperative pool) and on the writers' own threads.
///
/// A writer's failure is kept and thrown by the next ``enqueue(_:id:)`` or by ``drain()``, which
/// the backup calls before it writes the index: every blob is stored before anything refers to it.
final class BlobWriter: @unchecked Sendable {
    // State guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [(id: String, bytes: [UInt8])] = []
    private var bytesInFlight = 0
    private var busy = 0
    private var failure: SandboxError?
    private var stopping = false
    private var written: Int64 = 0
    private var running = 0

    let repository: Repository
    let maximumBytesInFlight: Int

    init(repository: Repository, writers: Int = 2, maximumBytesInFlight: Int = 24 << 20) {
        self.repository = repository
        self.maximumBytesInFlight = maximumBytesInFlight
        running = max(1, writers)
        for index in 0..<running {
            let thread = Thread { [self] in work() }
            thread.name = "backup-writer-\(index)"
            thread.start()
        }
    }

    /// Queues a copy of `bytes` to be stored as blob `id`, waiting while too much is in flight.
    ///
    /// - Throws: an earlier writer's failure.
    func enqueue(_ bytes: UnsafeRawBufferPointer, id: String) throws(SandboxError) {
        let copy = [UInt8](bytes)
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && bytesInFlight > 0 && bytesInFlight + copy.count > maximumBytesInFlight {
            condition.wait()
        }
        if let failure { throw failure }
        queue.append((id, copy))
        bytesInFlight += copy.count
        condition.broadcast()
    }

    /// Bytes written since the last call (0 for blobs that existed).
    func takeWritten() -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        let result = written
        written = 0
        return result
    }

    /// Waits until every queued blob is stored.
    ///
    /// - Throws: a writer's failure.
    func drain() throws(SandboxError) {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && (!queue.isEmpty || busy > 0) { condition.wait() }
        if let failure { throw failure }
    }

    /// Stops the writers once the queue is empty (at once after a failure: the rest is dropped)
    /// and waits until they have ended.
    func stop() {
        condition.lock()
        stopping = true
        if failure != nil {
            bytesInFlight -= queue.reduce(0) { $0 + $1.bytes.count }
            queue.removeAll()
        }
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if queue.isEmpty || failure != nil {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let item = queue.removeFirst()
            busy += 1
            condition.unlock()
            var stored: Int64 = 0
            var error: SandboxError?
            do throws(SandboxError) {
                stored = Int64(
                    try item.bytes.withBytes { (buffer) throws(SandboxError) in
                        try repository.storeBlob(buffer, id: item.id)
                    })
            } catch let caught {
                error = caught
            }
            condition.lock()
            busy -= 1
            bytesInFlight -= item.bytes.count
            written += stored
            if let error, failure == nil { failure = error }
            condition.broadcast()
            condition.unlock()
        }
    }
}
