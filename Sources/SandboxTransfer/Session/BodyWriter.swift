import Foundation
import NIOCore
import NIOHTTP1

/// Writes one response body into the partial file as its parts arrive — on the I/O engine, one
/// part after the other, handed over by the ``BodyPipe`` the ``AttemptReceiver`` fills on the HTTP
/// client's event loop: a part is one `pwrite` into the page cache, with no task or continuation
/// per part.
///
/// Made from the head of an answer whose ``ResponseDecision`` is `.write`; bytes past `end` are
/// never written; a body that stops before `end` was cut (retryable); one that ends at `end` before
/// `total` was a short 206.
struct BodyWriter: Sendable {
    private let run: TransferRun
    private let partial: PartialFile
    private let record: TaskRecord
    private let offset: Int64
    private let end: Int64?
    private let total: Int64?
    /// Where the next byte goes.
    private(set) var position: Int64
    private var digest: StreamingDigest?
    private var meter: ProgressMeter
    private let started: ContinuousClock.Instant
    private var lastCheckpoint: ContinuousClock.Instant

    /// What the head says and what the run knew when it asked.
    struct Head {
        var offset: Int64
        var end: Int64?
        var total: Int64?
        var restart: RestartReason?
        var headers: HTTPHeaders
        /// The URL that answered (after redirects).
        var finalURL: URL?
        /// When the head arrived (on the client's event loop): the checkpoint interval runs from
        /// here, not from when the engine makes the writer, which on a loaded machine may come
        /// after the whole of a small body has arrived.
        var received: ContinuousClock.Instant
    }

    /// Prepares the partial file and the checkpoint for the body the head announces: empties the
    /// file when the body starts at zero over bytes on disk, records the validator, length and
    /// suggested name (a small transfer's record waits, see `Configuration.smallTransferLimit`; a
    /// larger one is written before its first byte, so a kill at any moment keeps what reached the
    /// disk), and reports a restart or resume.
    ///
    /// - Parameters:
    ///   - hadBytes: whether the partial file held bytes when the request was sent.
    ///   - prefix: the digest of the file's first `head.offset` bytes when a digest is expected and
    ///     the body continues the file (`nil` otherwise).
    init(
        run: TransferRun, partial: PartialFile, record: TaskRecord, head: Head, hadBytes: Bool,
        announcingResume: Bool, prefix: StreamingDigest?
    ) throws(AttemptFailure) {
        let session = run.session
        let (offset, total, restart) = (head.offset, head.total, head.restart)
        if offset == 0 && hadBytes {
            try AttemptFailure.fatalOnError { () throws(SandboxError) in try partial.truncate(to: 0) }
        }
        if let restart { session.emit(.didRestart(run.task, reason: restart)) }
        let validator = offset > 0 ? record.validator : ResponseDecision.resumeValidator(head.headers)
        let suggested = SuggestedFilename.make(
            contentDisposition: head.headers.first(name: "content-disposition"),
            url: head.finalURL ?? URL(string: record.originalURL))
        let small = total.map { $0 - offset <= session.configuration.smallTransferLimit } ?? false
        try AttemptFailure.fatalOnError { () throws(SandboxError) in
            try session.store.update(record.id, deferring: small) {
                $0.validator = validator
                $0.expectedLength = total
                $0.finalURL = head.finalURL?.absoluteString
                $0.suggestedFilename = suggested
                $0.bytesOnDisk = offset
                if let restart { $0.lastRestartReason = restart }
            }
        }
        if offset > 0 && announcingResume {
            session.emit(.didResume(run.task, atOffset: offset, expectedTotalBytes: total))
        }
        self.run = run
        self.partial = partial
        self.record = record
        self.offset = offset
        self.end = head.end
        self.total = total
        position = offset
        digest = offset > 0 ? prefix : record.expectedDigest.map { StreamingDigest($0.algorithm) }
        meter = ProgressMeter(
            startingAt: offset, expectedTotal: total, interval: session.configuration.progressInterval)
        started = ContinuousClock.now
        lastCheckpoint = head.received
    }

    /// Writes one part of the body.
    ///
    /// - Returns: when the next part may be read (the configured rate limit), `nil` for at once.
    mutating func receive(_ received: ByteBuffer) throws(AttemptFailure) -> ContinuousClock.Instant? {
        let (session, url) = (run.session, record.originalURL)
        let count = Int64(received.readableBytes)
        if let end, position + count > end {
            // Keep what the answer announced, never what runs past it; the next attempt continues.
            let kept = received.getSlice(at: received.readerIndex, length: Int(end - position)) ?? ByteBuffer()
            try AttemptFailure.fatalOnError { () throws(SandboxError) in
                try partial.write(kept, atOffset: position, digest: &digest)
                position = end
                try session.store.update(record.id) { [end] in $0.bytesOnDisk = end }
            }
            throw AttemptFailure(
                error: SandboxError(
                    .invalidResponse, "\(url) sent more bytes than the \(end - offset) it announced.", url: url),
                retryable: true)
        }
        try AttemptFailure.fatalOnError { () throws(SandboxError) in
            try partial.write(received, atOffset: position, digest: &digest)
        }
        position += count
        let configuration = session.configuration
        let now = ContinuousClock.now
        if let progress = meter.record(count, now: now) { run.report(progress) }
        if now - lastCheckpoint >= configuration.checkpointInterval {
            lastCheckpoint = now
            try AttemptFailure.fatalOnError { () throws(SandboxError) in
                try session.store.update(record.id) { [position] in $0.bytesOnDisk = position }
            }
        }
        guard let rate = configuration.rateLimit, rate > 0 else { return nil }
        let due = started + .milliseconds((position - offset) * 1000 / rate)
        return due > now ? due : nil
    }

    /// Reports the progress not reported yet (at the end of the body, or when it failed).
    mutating func flushProgress() {
        if let progress = meter.flush(now: ContinuousClock.now) { run.report(progress) }
    }

    /// The attempt's result once the body ended: the file is complete and checked (`.finished`), a
    /// short 206 was written whole (`.continued`), or the body was cut (a retryable failure).
    func finish() throws(AttemptFailure) -> TransferRun.AttemptResult {
        let (session, url, id) = (run.session, record.originalURL, record.id)
        if let end = end ?? total, position < end {
            throw AttemptFailure(
                error: SandboxError(
                    .network, "The connection for \(url) ended after \(position) of \(end) bytes.", url: url),
                retryable: true)
        }
        if let total, position < total {
            try AttemptFailure.fatalOnError { () throws(SandboxError) in
                try session.store.update(id) { [position] in $0.bytesOnDisk = position }
            }
            return .continued
        }
        try AttemptFailure.fatalOnError { () throws(SandboxError) in
            if total == nil { try session.store.update(id) { [position] in $0.expectedLength = position } }
            try run.finish(partial, record: record, length: position, digest: digest)
        }
        return .finished
    }
}

extension AttemptFailure {
    /// Runs `body`, turning its error into a failure no retry can fix.
    @discardableResult
    static func fatalOnError<R>(_ body: () throws(SandboxError) -> R) throws(AttemptFailure) -> R {
        do throws(SandboxError) { return try body() } catch { throw .fatal(error) }
    }
}
