import SandboxCore

/// Names, seals and stores blobs on threads of its own while the backup's thread reads and
/// chunks: hashing (HMAC-SHA256 or SHA-256, a third of a first backup's time on the backup's
/// thread when it hashed there), sealing and writing use the second core. Memory in flight is
/// bounded (``BlobQueue/maximumBytesInFlight``): ``enqueue(_:)`` waits when the writers are behind.
///
/// ``enqueue(_:)`` returns a ticket; ``ids(for:)`` gives the blob ids of tickets once they are
/// hashed, so a file's node gets its chunk ids when its app's tree is written, without waiting
/// after every file. Deduplication is here too: a blob the repository (or this backup) already
/// holds is dropped once hashed; of two equal chunks in flight at once, one is stored.
///
/// The threads are a ``WorkerPool``'s; what they take next and what their work came to is
/// ``BlobQueue``'s, a state without I/O. The owner's waits are on the backup's thread, which only
/// waits for these writers, never for Swift's cooperative pool.
///
/// A writer's failure is kept and thrown by the next ``enqueue(_:)``, ``ids(for:)`` or
/// ``drain()``, which the backup calls before it writes the index: every blob is stored before
/// anything refers to it.
final class BlobWriter: Sendable {
    let repository: Repository
    private let pool: WorkerPool<BlobQueue>

    init(repository: Repository, writers: Int = 2, maximumBytesInFlight: Int = 24 << 20) {
        self.repository = repository
        pool = WorkerPool(
            BlobQueue(maximumBytesInFlight: maximumBytesInFlight), threads: max(1, writers), name: "backup-writer"
        ) { work in
            switch work.step {
            case .name:
                return .named(work, id: work.bytes.withUnsafeBytes { repository.blobID(of: $0) })
            case .store(let id):
                do throws(SandboxError) {
                    let written = try work.bytes.withBytes { (buffer) throws(SandboxError) in
                        try repository.storeBlob(buffer, id: id)
                    }
                    return .stored(work, id: id, bytesWritten: Int64(written))
                } catch {
                    return .failed(work, error)
                }
            }
        }
    }

    /// Adds `ids` to the blobs the repository holds (they are not stored again).
    func remember(_ ids: some Sequence<String>) {
        pool.withState { $0.remember(ids) }
    }

    /// Queues a copy of `bytes` to be named and, unless the repository holds it, stored, waiting
    /// while too much is in flight.
    ///
    /// - Returns: the ticket to ask ``ids(for:)`` for its id.
    /// - Throws: an earlier writer's failure.
    func enqueue(_ bytes: UnsafeRawBufferPointer) throws(SandboxError) -> Int {
        let copy = [UInt8](bytes)
        let hasRoom = { (queue: BlobQueue) in queue.accepts(byteCount: copy.count) }
        return try pool.withState(until: hasRoom) {
            (queue) throws(SandboxError) in
            if let failure = queue.failure { throw failure }
            return queue.enqueue(copy)
        }
    }

    /// The blob ids of `tickets`, in order, waiting until each is hashed (not necessarily stored:
    /// ``drain()`` waits for that). Each ticket can be asked for once.
    ///
    /// - Throws: a writer's failure.
    func ids(for tickets: [Int]) throws(SandboxError) -> [String] {
        var result: [String] = []
        result.reserveCapacity(tickets.count)
        for ticket in tickets {
            let isNamed = { (queue: BlobQueue) in queue.failure != nil || queue.hasName(for: ticket) }
            let id = try pool.withState(until: isNamed) {
                (queue) throws(SandboxError) in
                if let failure = queue.failure { throw failure }
                return queue.takeName(for: ticket)
            }
            if let id { result.append(id) }
        }
        return result
    }

    /// Bytes written since the last call (0 for blobs that existed).
    func takeWritten() -> Int64 {
        pool.withState { $0.takeWritten() }
    }

    /// Waits until every queued blob is stored.
    ///
    /// - Returns: the blobs stored so far (id → plaintext size), for the index.
    /// - Throws: a writer's failure.
    func drain() throws(SandboxError) -> [String: Int] {
        try pool.withState(until: \.isSettled) { (queue) throws(SandboxError) in
            if let failure = queue.failure { throw failure }
            return queue.stored
        }
    }

    /// Stops the writers (blobs not taken yet are dropped: the backup drains first when it
    /// succeeds) and waits until they have ended.
    func stop() { pool.stop() }
}

/// What a backup's blob writers share: the chunks waiting to be named, the named ones waiting to
/// be stored, the ids handed back by ticket, and the deduplication set. Changed only under the
/// ``WorkerPool``'s lock, and free of I/O (unit-tested as it is).
///
/// A chunk is taken twice: first to be named (hashed), then — when its id is new — to be stored.
/// Chunks waiting to be stored go first, so memory in flight drains before more is hashed.
struct BlobQueue: WorkerPoolState {
    /// A piece of work: a chunk to name, or a named chunk to store.
    struct Work: Sendable {
        enum Step: Sendable {
            case name
            case store(id: String)
        }

        let ticket: Int
        let bytes: [UInt8]
        let step: Step
    }

    /// What a piece of work came to.
    enum Outcome {
        case named(Work, id: String)
        case stored(Work, id: String, bytesWritten: Int64)
        case failed(Work, SandboxError)
    }

    /// Most plaintext bytes queued, being named or being stored at once (one chunk is always
    /// taken, however large).
    let maximumBytesInFlight: Int
    /// Taken slots are `nil` (their bytes released at once) until they are dropped in a batch.
    private var toName: [Work?] = []
    private var toNameStart = 0
    private var toStore: [Work] = []
    private var nextTicket = 0
    private var names: [Int: String] = [:]
    private var known: Set<String> = []
    private(set) var stored: [String: Int] = [:]
    private(set) var bytesInFlight = 0
    private var busy = 0
    private var written: Int64 = 0
    private(set) var failure: SandboxError?

    init(maximumBytesInFlight: Int) {
        self.maximumBytesInFlight = maximumBytesInFlight
    }

    /// Whether a chunk of `byteCount` bytes may be queued now, or a failure is to be reported.
    func accepts(byteCount: Int) -> Bool {
        failure != nil || bytesInFlight == 0 || bytesInFlight + byteCount <= maximumBytesInFlight
    }

    /// Whether every queued chunk is named and stored (or dropped as known), or a writer failed.
    var isSettled: Bool {
        failure != nil || (toNameStart == toName.count && toStore.isEmpty && busy == 0)
    }

    /// Adds `ids` to the blobs held already.
    mutating func remember(_ ids: some Sequence<String>) {
        known.formUnion(ids)
    }

    /// Queues `bytes` to be named; returns its ticket.
    mutating func enqueue(_ bytes: [UInt8]) -> Int {
        let ticket = nextTicket
        nextTicket += 1
        toName.append(Work(ticket: ticket, bytes: bytes, step: .name))
        bytesInFlight += bytes.count
        return ticket
    }

    /// Whether the chunk of `ticket` has been named (and its name not yet taken).
    func hasName(for ticket: Int) -> Bool { names[ticket] != nil }

    /// The name of the chunk of `ticket`, handed out once.
    mutating func takeName(for ticket: Int) -> String? { names.removeValue(forKey: ticket) }

    /// Bytes written since the last call.
    mutating func takeWritten() -> Int64 {
        defer { written = 0 }
        return written
    }

    mutating func next() -> WorkerStep<Work> {
        if failure != nil { return .finish }
        if let store = toStore.popLast() {
            busy += 1
            return .perform(store)
        }
        guard toNameStart < toName.count, let work = toName[toNameStart] else { return .wait }
        toName[toNameStart] = nil
        toNameStart += 1
        if toNameStart == toName.count || toNameStart > 4096 {  // drop the taken slots now and then
            toName.removeFirst(toNameStart)
            toNameStart = 0
        }
        busy += 1
        return .perform(work)
    }

    mutating func record(_ outcome: Outcome) {
        busy -= 1
        switch outcome {
        case .named(let work, let id):
            names[work.ticket] = id
            if known.insert(id).inserted {
                toStore.append(Work(ticket: work.ticket, bytes: work.bytes, step: .store(id: id)))
            } else {
                bytesInFlight -= work.bytes.count
            }
        case .stored(let work, let id, let bytesWritten):
            bytesInFlight -= work.bytes.count
            written += bytesWritten
            stored[id] = work.bytes.count
        case .failed(let work, let error):
            bytesInFlight -= work.bytes.count
            if failure == nil { failure = error }
        }
    }
}
