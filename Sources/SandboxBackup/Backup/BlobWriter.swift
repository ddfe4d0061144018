import Foundation
import SandboxCore

/// Names, seals and stores blobs on threads of its own while the backup's thread reads and
/// chunks: hashing (HMAC-SHA256 or SHA-256, a third of a first backup's time on the backup's
/// thread when it hashed there), sealing and writing use the second core. Memory in flight is
/// bounded (``maximumBytesInFlight``): ``enqueue(_:)`` waits when the writers are behind.
///
/// ``enqueue(_:)`` returns a ticket; ``ids(for:)`` gives the blob ids of tickets once they are
/// hashed, so a file's node gets its chunk ids when its app's tree is written, without waiting
/// after every file. Deduplication is here too: a writer that hashes a blob the repository (or this
/// backup) already holds drops it; of two equal chunks in flight at once, one is stored.
///
/// The waits are on an `NSCondition`, on the backup's thread (which only waits for these
/// writers, never for Swift's cooperative pool) and on the writers' own threads.
///
/// A writer's failure is kept and thrown by the next ``enqueue(_:)``, ``ids(for:)`` or
/// ``drain()``, which the backup calls before it writes the index: every blob is stored before
/// anything refers to it.
final class BlobWriter: @unchecked Sendable {
    // State guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [(ticket: Int, bytes: [UInt8])] = []
    private var queueStart = 0
    private var nextTicket = 0
    private var hashed: [Int: String] = [:]
    private var known: Set<String> = []
    private var stored: [String: Int] = [:]
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

    /// Adds `ids` to the blobs the repository holds (they are not stored again).
    func remember(_ ids: some Sequence<String>) {
        condition.lock()
        defer { condition.unlock() }
        known.formUnion(ids)
    }

    /// Queues a copy of `bytes` to be named and, unless the repository holds it, stored, waiting
    /// while too much is in flight.
    ///
    /// - Returns: the ticket to ask ``ids(for:)`` for its id.
    /// - Throws: an earlier writer's failure.
    func enqueue(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) -> Int {
        let copy = [UInt8](bytes)
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && bytesInFlight > 0 && bytesInFlight + copy.count > maximumBytesInFlight {
            condition.wait()
        }
        if let failure { throw failure }
        let ticket = nextTicket
        nextTicket += 1
        queue.append((ticket, copy))
        bytesInFlight += copy.count
        condition.broadcast()
        return ticket
    }

    /// The blob ids of `tickets`, in order, waiting until each is hashed (not necessarily stored:
    /// ``drain()`` waits for that). Each ticket can be asked for once.
    ///
    /// - Throws: a writer's failure.
    func ids(for tickets: [Int]) throws(SandboxError) -> [String] {
        condition.lock()
        defer { condition.unlock() }
        var result: [String] = []
        result.reserveCapacity(tickets.count)
        for ticket in tickets {
            while failure == nil && hashed[ticket] == nil { condition.wait() }
            if let failure { throw failure }
            if let id = hashed.removeValue(forKey: ticket) { result.append(id) }
        }
        return result
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
    /// - Returns: the blobs stored so far (id → plaintext size), for the index.
    /// - Throws: a writer's failure.
    func drain() throws(SandboxError) -> [String: Int] {
        condition.lock()
        defer { condition.unlock() }
        while failure == nil && (queueStart < queue.count || busy > 0) { condition.wait() }
        if let failure { throw failure }
        return stored
    }

    /// Stops the writers once the queue is empty (at once after a failure: the rest is dropped)
    /// and waits until they have ended.
    func stop() {
        condition.lock()
        stopping = true
        if failure != nil {
            bytesInFlight -= queue[queueStart...].reduce(0) { $0 + $1.bytes.count }
            queue.removeAll()
            queueStart = 0
        }
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// The next queued blob, or `nil` when the writer should end (called with the lock held).
    private func next() -> (ticket: Int, bytes: [UInt8])? {
        while queueStart == queue.count && !stopping { condition.wait() }
        if queueStart == queue.count || failure != nil { return nil }
        let item = queue[queueStart]
        queue[queueStart].bytes = []
        queueStart += 1
        if queueStart == queue.count || queueStart > 4096 {  // drop the taken slots now and then
            queue.removeFirst(queueStart)
            queueStart = 0
        }
        return item
    }

    private func work() {
        while true {
            condition.lock()
            guard let item = next() else {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            busy += 1
            condition.unlock()
            let id = item.bytes.withUnsafeBytes { repository.blobID(of: $0) }
            condition.lock()
            hashed[item.ticket] = id
            let isNew = known.insert(id).inserted
            condition.broadcast()
            condition.unlock()
            var bytesStored: Int64 = 0
            var error: SandboxError?
            if isNew {
                do throws(SandboxError) {
                    bytesStored = Int64(
                        try item.bytes.withBytes { (buffer) throws(SandboxError) in
                            try repository.storeBlob(buffer, id: id)
                        })
                } catch let caught {
                    error = caught
                }
            }
            condition.lock()
            busy -= 1
            bytesInFlight -= item.bytes.count
            written += bytesStored
            if isNew && error == nil { stored[id] = item.bytes.count }
            if let error, failure == nil { failure = error }
            condition.broadcast()
            condition.unlock()
        }
    }
}
