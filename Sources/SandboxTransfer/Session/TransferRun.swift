import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Sandbox
import Synchronization

/// One run of a task: requests until the file is complete, retrying transient failures (each retry
/// continues from the bytes on disk), restarting from zero when the server cannot continue.
///
/// Ends when the file is complete and checked, on a failure that retries cannot fix, or when its
/// Swift task is cancelled (suspend, cancel), after flushing the partial file.
struct TransferRun: Sendable {
    let session: DownloadSession
    let task: DownloadTask

    /// Restarts from zero allowed per run before giving up (a server whose validator changes on
    /// every request can never be downloaded consistently).
    static let maximumRestarts = 3

    private enum AttemptResult {
        case finished
        case restarted
        /// A short 206 was written whole: ask for the rest from the new offset.
        case continued
    }

    func execute() async -> DownloadTaskMachine.RunResult {
        guard let record = session.store.record(task.taskIdentifier) else {
            return .failed(
                TransferError(.notFound, "The checkpoint lost task \(task.taskIdentifier)."), resumable: false)
        }
        let partial: PartialFile
        do throws(TransferError) {
            partial = try PartialFile(root: session.root, path: try session.partialPath(record.partialName))
        } catch {
            return .failed(error, resumable: false)
        }
        defer { partial.close() }
        // The retry budget counts attempts without progress: an attempt that takes the file past
        // its longest length so far (`mark`) starts the count again, so a server that drops or
        // answers short ranges after sending new bytes each time is followed to the end.
        var attempt = 1
        var restarts = 0
        var mark = length(of: partial) ?? 0  // unreadable: the first attempt fails on it
        var continuing = false
        while true {
            if Task.isCancelled { return stopped(partial) }
            do throws(AttemptFailure) {
                let result = try await attemptOnce(partial, announcingResume: !continuing)
                continuing = false
                switch result {
                case .finished:
                    return .finished
                case .continued:
                    continuing = true
                    if advanced(partial, past: &mark) { attempt = 1 }
                case .restarted:
                    restarts += 1
                    if restarts > Self.maximumRestarts {
                        let url = record.originalURL
                        return .failed(
                            TransferError(
                                .invalidResponse,
                                "\(url) could not be continued \(restarts) times in a row (its content keeps changing); try later.",
                                url: url),
                            resumable: false)
                    }
                }
            } catch {
                continuing = false
                if Task.isCancelled { return stopped(partial) }
                if advanced(partial, past: &mark) { attempt = 1 }
                attempt += 1
                let retryAfter = error.retryAfter
                guard error.retryable,
                    let delay = session.configuration.retryPolicy.delay(
                        beforeAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1))
                else {
                    flush(partial)
                    // Kept unless the bytes are wrong; the session keeps them only when a validator can guard a resume, and says so.
                    return .failed(error.error, resumable: error.error.code != .checksumMismatch)
                }
                session.emit(.willRetry(task, attempt: attempt, delay: delay, error: error.error))
                do { try await Task.sleep(for: delay) } catch { return stopped(partial) }
            }
        }
    }

    /// Whether the partial file is now longer than `mark` (which then moves to its length).
    private func advanced(_ partial: PartialFile, past mark: inout Int64) -> Bool {
        // unreadable: the next attempt fails on it
        guard let length = length(of: partial), length > mark else { return false }
        mark = length
        return true
    }

    /// The partial file's length, `nil` when it cannot be read (logged at debug level: the next
    /// attempt, which needs it, fails with the error).
    private func length(of partial: PartialFile) -> Int64? {
        do throws(TransferError) {
            return try partial.length()
        } catch {
            session.logger.handled(error, "The next attempt reports it.", level: .debug)
            return nil
        }
    }

    /// The run was stopped: flush what is on disk so resume data is good after a power cut too.
    private func stopped(_ partial: PartialFile) -> DownloadTaskMachine.RunResult {
        flush(partial)
        let error = TransferError(
            .cancelled, "The download of \(task.request.url.absoluteString) was stopped.",
            url: task.request.url.absoluteString)
        return .failed(error, resumable: true)
    }

    /// Best effort, for a run that ends with a failure of its own: a failure here goes to the
    /// session's logger. The resume offset is the file's length, whatever reached the disk, and
    /// the recorded length is informational (for listings).
    private func flush(_ partial: PartialFile) {
        let url = task.request.url.absoluteString
        do throws(TransferError) {
            try partial.synchronize()
        } catch {
            session.logger.handled(error, "The partial file of \(url) may lose its last bytes in a power cut.")
        }
        do throws(TransferError) {
            let length = try partial.length()
            try session.store.update(task.taskIdentifier, durable: true) { $0.bytesOnDisk = length }
        } catch {
            session.logger.handled(error, "Listings show an older length for \(url).")
        }
    }

    /// One request and its body. `announcingResume`: report `didResume` when it continues a file
    /// (not when it only asks for the rest after a short 206).
    private func attemptOnce(
        _ partial: PartialFile, announcingResume: Bool
    ) async throws(AttemptFailure) -> AttemptResult {
        guard let record = session.store.record(task.taskIdentifier) else {
            throw .fatal(TransferError(.notFound, "The checkpoint lost task \(task.taskIdentifier)."))
        }
        let url = record.originalURL
        let length = try fatal { () throws(TransferError) in try partial.length() }
        let plan = Self.plan(record: record, length: length)
        let response: HTTPClientResponse
        do {
            response = try await session.client.execute(Self.request(for: record, plan: plan), deadline: .distantFuture)
        } catch {
            throw AttemptFailure.classify(error, url: url)
        }
        let status = Int(response.status.code)
        switch ResponseDecision.decide(status: status, headers: response.headers, plan: plan) {
        case .retry(let retryAfter, _):
            throw AttemptFailure(
                error: TransferError(
                    .httpStatus, "The server answered \(status) \(response.status.reasonPhrase) for \(url).", url: url),
                retryable: true,
                retryAfter: retryAfter.flatMap { RetryPolicy.retryAfter($0) })
        case .fail:
            throw .fatal(
                TransferError(
                    .httpStatus,
                    "The server answered \(status) \(response.status.reasonPhrase) for \(url); nothing was written. Check the URL.",
                    url: url))
        case .invalid(let reason):
            throw AttemptFailure(
                error: TransferError(
                    .invalidResponse, "The server's answer for \(url) is invalid: \(reason).", url: url),
                retryable: true)
        case .restartWithoutRange(let reason):
            try restart(partial, reason: reason)
            return .restarted
        case .alreadyComplete(let total):
            try fatal { () throws(TransferError) in
                try session.store.update(record.id) { $0.expectedLength = total }
                try finish(partial, record: record, length: total, digest: nil)
            }
            return .finished
        case .write(let offset, let end, let total, let restartReason):
            let body = BodyPlan(
                offset: offset, end: end, total: total, restart: restartReason, announcingResume: announcingResume)
            return try await write(response, into: partial, record: record, body, hadBytes: length > 0)
        }
    }

    /// Where to start and what to send, from the record and the bytes on disk.
    static func plan(record: TaskRecord, length: Int64) -> RequestPlan {
        var plan = RequestPlan(offset: 0, validator: record.validator, expectedLength: record.expectedLength)
        guard length > 0 else { return plan }
        if record.validator == nil {
            plan.restartReason = .noValidator
        } else if let expected = record.expectedLength, length > expected {
            plan.restartReason = .partialFileUnusable
        } else {
            plan.offset = length
        }
        return plan
    }

    /// GET with `Accept-Encoding: identity` (ranges count encoded bytes), and `Range` + `If-Range`
    /// when continuing.
    static func request(for record: TaskRecord, plan: RequestPlan) -> HTTPClientRequest {
        var request = HTTPClientRequest.transfer(url: record.originalURL, headers: record.headers)
        if plan.offset > 0, let validator = plan.validator {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(plan.offset)-")
            request.headers.replaceOrAdd(name: "If-Range", value: validator.ifRangeValue)
        }
        return request
    }

    private func restart(_ partial: PartialFile, reason: RestartReason) throws(AttemptFailure) {
        try fatal { () throws(TransferError) in
            try partial.truncate(to: 0)  // before the checkpoint forgets the validator: never old bytes under a new one
            try session.store.update(task.taskIdentifier) {
                $0.validator = nil
                $0.expectedLength = nil
                $0.bytesOnDisk = 0
                $0.lastRestartReason = reason
            }
        }
        session.emit(.didRestart(task, reason: reason))
    }

    /// Where a body goes: from `offset` to `end` (exclusive, when known) of a file of `total` bytes.
    private struct BodyPlan {
        var offset: Int64
        var end: Int64?
        var total: Int64?
        var restart: RestartReason?
        var announcingResume: Bool
    }

    /// Writes the body at its offset. Bytes past `end` are never written; a body that stops before
    /// `end` was cut (retryable); one that ends at `end` before `total` was a short 206.
    private func write(
        _ response: HTTPClientResponse, into partial: PartialFile, record: TaskRecord, _ plan: BodyPlan, hadBytes: Bool
    ) async throws(AttemptFailure) -> AttemptResult {
        let url = record.originalURL
        let (offset, total, restart) = (plan.offset, plan.total, plan.restart)
        if offset == 0 && hadBytes { try fatal { () throws(TransferError) in try partial.truncate(to: 0) } }
        if let restart { session.emit(.didRestart(task, reason: restart)) }
        let headers = response.headers
        let validator = offset > 0 ? record.validator : ResponseDecision.resumeValidator(headers)
        let suggested = SuggestedFilename.make(
            contentDisposition: headers.first(name: "content-disposition"), url: response.url ?? URL(string: url))
        // A small transfer's record waits (see `Configuration.smallTransferLimit`); a larger one is
        // written before its first byte, so a kill at any moment keeps what reached the disk.
        let small = total.map { $0 - offset <= session.configuration.smallTransferLimit } ?? false
        try fatal { () throws(TransferError) in
            try session.store.update(record.id, deferring: small) {
                $0.validator = validator
                $0.expectedLength = total
                $0.finalURL = response.url?.absoluteString
                $0.suggestedFilename = suggested
                $0.bytesOnDisk = offset
                if let restart { $0.lastRestartReason = restart }
            }
        }
        if offset > 0 && plan.announcingResume {
            session.emit(.didResume(task, atOffset: offset, expectedTotalBytes: total))
        }
        var digest = record.expectedDigest.map { StreamingDigest($0.algorithm) }
        if offset > 0, var prefix = digest {
            try fatal { () throws(TransferError) in try partial.hashPrefix(offset, into: &prefix) }
            digest = prefix
        }
        let configuration = session.configuration
        var meter = ProgressMeter(startingAt: offset, expectedTotal: total, interval: configuration.progressInterval)
        var position = offset
        let clock = ContinuousClock()
        let started = clock.now
        var lastCheckpoint = started
        do {
            for try await received in response.body {
                var buffer = received
                let count = Int64(buffer.readableBytes)
                if let end = plan.end, position + count > end {
                    // Keep what the answer announced, never what runs past it; the next attempt continues.
                    buffer = buffer.getSlice(at: buffer.readerIndex, length: Int(end - position)) ?? ByteBuffer()
                    try partial.write(buffer, atOffset: position, digest: &digest)
                    position = end
                    try session.store.update(record.id) { [position] in $0.bytesOnDisk = position }
                    throw AttemptFailure(
                        error: TransferError(
                            .invalidResponse, "\(url) sent more bytes than the \(end - offset) it announced.", url: url),
                        retryable: true)
                }
                try partial.write(buffer, atOffset: position, digest: &digest)
                position += count
                let now = clock.now
                if let progress = meter.record(count, now: now) { report(progress) }
                if now - lastCheckpoint >= configuration.checkpointInterval {
                    lastCheckpoint = now
                    try session.store.update(record.id) { [position] in $0.bytesOnDisk = position }
                }
                if let rate = configuration.rateLimit, rate > 0 {
                    let due = started + .milliseconds((position - offset) * 1000 / rate)
                    if due > now { try await Task.sleep(until: due, clock: clock) }
                }
            }
        } catch {
            if let progress = meter.flush(now: clock.now) { report(progress) }
            throw AttemptFailure.classify(error, url: url)
        }
        if let progress = meter.flush(now: clock.now) { report(progress) }
        if let end = plan.end ?? total, position < end {
            throw AttemptFailure(
                error: TransferError(
                    .network, "The connection for \(url) ended after \(position) of \(end) bytes.", url: url),
                retryable: true)
        }
        if let total, position < total {
            try fatal { () throws(TransferError) in
                try session.store.update(record.id) { [position] in $0.bytesOnDisk = position }
            }
            return .continued
        }
        try fatal { () throws(TransferError) in
            if total == nil { try session.store.update(record.id) { [position] in $0.expectedLength = position } }
            try finish(partial, record: record, length: position, digest: digest)
        }
        return .finished
    }

    private func report(_ progress: TransferProgress) {
        task.update(progress: progress)
        session.emit(.didWriteData(task, progress))
    }

    /// Flushes the complete file (when configured) and checks its digest (re-reading it when `digest` is `nil` and one
    /// is expected, as after a 416 "already complete").
    private func finish(
        _ partial: PartialFile, record: TaskRecord, length: Int64, digest: StreamingDigest?
    ) throws(TransferError) {
        if session.configuration.synchronizesFinishedFiles { try partial.synchronize() }
        var computed: String?
        if let expected = record.expectedDigest {
            var running = digest ?? StreamingDigest(expected.algorithm)
            if digest == nil { try partial.hashPrefix(length, into: &running) }
            let hex = running.finalizeHex()
            guard hex == expected.hex else {
                throw TransferError(
                    .checksumMismatch,
                    "The file from \(record.originalURL) has \(expected.algorithm.rawValue) \(hex), not the expected \(expected.hex); it was deleted.",
                    url: record.originalURL)
            }
            computed = hex
        }
        task.live.withLock { $0.finished = (length, computed) }
    }

    @discardableResult
    private func fatal<R>(_ body: () throws(TransferError) -> R) throws(AttemptFailure) -> R {
        do throws(TransferError) { return try body() } catch { throw .fatal(error) }
    }
}
