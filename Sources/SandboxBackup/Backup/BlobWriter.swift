import SandboxCore

/// Names, compresses, seals and packs blobs on threads of its own while the backup's thread reads
/// and chunks: hashing (HMAC-SHA256 or SHA-256, a third of a first backup's time on the backup's
/// thread when it hashed there), compressing (zstd, ``Repository/sealForPack(_:)``; each thread
/// borrows its own context), sealing and writing use the second core. Memory in flight is
/// bounded (``BlobQueue/maximumBytesInFlight`` of chunks, plus the packs being gathered and
/// written, ``BlobQueue/maximumPackBytes``): ``enqueue(_:kind:)`` waits when the writers are behind.
///
/// ``enqueue(_:kind:)`` returns a ticket; ``ids(for:)`` gives the blob ids of tickets once they are
/// hashed, so a file's node gets its chunk ids when its app's tree is written, without waiting
/// after every file. Deduplication is here too: a blob the repository (or this backup) already
/// holds is dropped once hashed; of two equal chunks in flight at once, one is stored.
///
/// Sealed blobs are gathered into packs, one a kind (``PackAssembler``); a full pack is written by
/// the next free writer as one object. ``drain()`` writes the packs still open.
///
/// The threads are a ``WorkerPool``'s; what they take next and what their work came to is
/// ``BlobQueue``'s, a state without I/O. The owner's waits are on the backup's thread, which only
/// waits for these writers, never for Swift's cooperative pool.
///
/// A writer's failure is kept and thrown by the next ``enqueue(_:kind:)``, ``ids(for:)`` or
/// ``drain()``, which the backup calls before it writes the index: every pack is stored before
/// anything refers to it.
final class BlobWriter: Sendable {
    let repository: Repository
    private let pool: WorkerPool<BlobQueue>

    init(
        repository: Repository, existing: BlobIndex = BlobIndex(), writers: Int = 2,
        maximumBytesInFlight: Int = 24 << 20, packSize: Int = PackAssembler.targetSize
    ) {
        self.repository = repository
        pool = WorkerPool(
            BlobQueue(maximumBytesInFlight: maximumBytesInFlight, existing: existing, packSize: packSize),
            threads: max(1, writers), name: "backup-writer"
        ) { work in
            switch work.step {
            case .name:
                return .named(work, id: work.bytes.withUnsafeBytes { repository.blobID(of: $0) })
            case .store(let id):
                do throws(SandboxError) {
                    let (sealed, compression) = try work.bytes.withBytes { (buffer) throws(SandboxError) in
                        try repository.sealForPack(buffer)
                    }
                    return .sealed(work, id: id, sealed: sealed, compression: compression)
                } catch {
                    return .failed(work, error)
                }
            case .writePack(let pack):
                do throws(SandboxError) {
                    let (written, bytes) = try repository.writePack(pack)
                    return .packWritten(work, written, bytesWritten: Int64(bytes))
                } catch {
                    return .failed(work, error)
                }
            }
        }
    }

    /// Queues a copy of `bytes` (a blob of `kind`) to be named and, unless the repository holds
    /// it, stored, waiting while too much is in flight.
    ///
    /// - Returns: the ticket to ask ``ids(for:)`` for its id.
    /// - Throws: an earlier writer's failure.
    func enqueue(_ bytes: UnsafeRawBufferPointer, kind: BlobKind = .data) throws(SandboxError) -> Int {
        let copy = [UInt8](bytes)
        let hasRoom = { (queue: BlobQueue) in queue.accepts(byteCount: copy.count) }
        return try pool.withState(until: hasRoom) {
            (queue) throws(SandboxError) in
            if let failure = queue.failure { throw failure }
            return queue.enqueue(copy, kind: kind)
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

    /// Waits until every queued blob is sealed, then writes the packs still open and waits for
    /// them.
    ///
    /// - Returns: the packs written so far, for the index.
    /// - Throws: a writer's failure.
    func drain() throws(SandboxError) -> [IndexedPack] {
        try pool.withState(until: \.isSettled) { (queue) throws(SandboxError) in
            if let failure = queue.failure { throw failure }
            queue.finishPacks()
        }
        return try pool.withState(until: \.isSettled) { (queue) throws(SandboxError) in
            if let failure = queue.failure { throw failure }
            return queue.packs
        }
    }

    /// Stops the writers (blobs not taken yet are dropped: the backup drains first when it
    /// succeeds) and waits until they have ended.
    func stop() { pool.stop() }
}

/// What a backup's blob writers share: the chunks waiting to be named, the named ones waiting to
/// be sealed, the packs being gathered and those waiting to be written, the ids handed back by
/// ticket, and the deduplication set. Changed only under the ``WorkerPool``'s lock, and free of I/O
/// (unit-tested as it is).
///
/// A chunk is taken twice: first to be named (hashed), then — when its id is new — to be sealed,
/// after which it joins its kind's pack. Full packs go first, then chunks waiting to be sealed, so
/// memory in flight drains before more is hashed.
struct BlobQueue: WorkerPoolState {
    /// A piece of work: a chunk to name, a named chunk to seal, or a pack to write.
    struct Work: Sendable {
        enum Step: Sendable {
            case name
            case store(id: String)
            case writePack(FinishedPack)
        }

        let ticket: Int
        let bytes: [UInt8]
        let kind: BlobKind
        let step: Step
    }

    /// What a piece of work came to.
    enum Outcome {
        case named(Work, id: String)
        case sealed(Work, id: String, sealed: [UInt8], compression: UInt8 = PackEntry.uncompressed)
        case packWritten(Work, IndexedPack, bytesWritten: Int64)
        case failed(Work, SandboxError)
    }

    /// Most plaintext bytes queued, being named or being sealed at once (one chunk is always
    /// taken, however large).
    let maximumBytesInFlight: Int
    /// Most bytes of packs being gathered or waiting to be written before ``accepts(byteCount:)``
    /// holds the backup back: two open packs and a full one.
    let maximumPackBytes: Int
    /// The blobs the repository's indexes list (not stored again).
    private let existing: BlobIndex
    /// Taken slots are `nil` (their bytes released at once) until they are dropped in a batch.
    private var toName: [Work?] = []
    private var toNameStart = 0
    private var toStore: [Work] = []
    private var toWrite: [FinishedPack] = []
    private var assembler: PackAssembler
    private var packBytesWriting = 0
    private var nextTicket = 0
    private var names: [Int: String] = [:]
    private var known: Set<String> = []
    /// The packs written, for the index.
    private(set) var packs: [IndexedPack] = []
    private(set) var bytesInFlight = 0
    private var busy = 0
    private var written: Int64 = 0
    private(set) var failure: SandboxError?

    init(maximumBytesInFlight: Int, existing: BlobIndex = BlobIndex(), packSize: Int = PackAssembler.targetSize) {
        self.maximumBytesInFlight = maximumBytesInFlight
        self.existing = existing
        assembler = PackAssembler(targetSize: packSize)
        maximumPackBytes = 3 * packSize
    }

    /// Whether a chunk of `byteCount` bytes may be queued now, or a failure is to be reported.
    func accepts(byteCount: Int) -> Bool {
        failure != nil
            || (packBytes <= maximumPackBytes
                && (bytesInFlight == 0 || bytesInFlight + byteCount <= maximumBytesInFlight))
    }

    /// Bytes of packs gathered or being written.
    private var packBytes: Int { assembler.bytesHeld + packBytesWriting }

    /// Whether every queued chunk is named and sealed (or dropped as known) and every full pack
    /// written, or a writer failed.
    var isSettled: Bool {
        failure != nil || (toNameStart == toName.count && toStore.isEmpty && toWrite.isEmpty && busy == 0)
    }

    /// Queues `bytes` to be named; returns its ticket.
    mutating func enqueue(_ bytes: [UInt8], kind: BlobKind = .data) -> Int {
        let ticket = nextTicket
        nextTicket += 1
        toName.append(Work(ticket: ticket, bytes: bytes, kind: kind, step: .name))
        bytesInFlight += bytes.count
        return ticket
    }

    /// Hands every open pack, however small, to the writers (the end of the backup).
    mutating func finishPacks() {
        for pack in assembler.finishAll() { queue(pack) }
    }

    private mutating func queue(_ pack: FinishedPack) {
        toWrite.append(pack)
        packBytesWriting += pack.blobs.count
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
        if let pack = toWrite.popLast() {
            busy += 1
            return .perform(Work(ticket: -1, bytes: [], kind: pack.kind, step: .writePack(pack)))
        }
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
            let held = BlobKey(hex: id).map { existing.contains($0) } ?? false
            if !held, known.insert(id).inserted {
                toStore.append(Work(ticket: work.ticket, bytes: work.bytes, kind: work.kind, step: .store(id: id)))
            } else {
                bytesInFlight -= work.bytes.count
            }
        case .sealed(let work, let id, let sealed, let compression):
            bytesInFlight -= work.bytes.count
            guard let key = BlobKey(hex: id) else {
                preconditionFailure("a blob id that is not 64 lowercase hex digits: \(id)")
            }
            if let full = assembler.add(
                sealed, id: key, kind: work.kind, uncompressedLength: work.bytes.count, compression: compression)
            {
                queue(full)
            }
        case .packWritten(let work, let pack, let bytesWritten):
            if case .writePack(let finished) = work.step { packBytesWriting -= finished.blobs.count }
            written += bytesWritten
            packs.append(pack)
        case .failed(let work, let error):
            bytesInFlight -= work.bytes.count
            if case .writePack(let finished) = work.step { packBytesWriting -= finished.blobs.count }
            if failure == nil { failure = error }
        }
    }
}
