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

    enum AttemptResult {
        case finished
        case restarted
        /// A short 206 was written whole: ask for the rest from the new offset.
        case continued
    }

    func execute() async -> DownloadTaskMachine.RunResult {
        guard let record = session.store.record(task.taskIdentifier) else {
            return .failed(
                SandboxError(.notFound, "The checkpoint lost task \(task.taskIdentifier)."), resumable: false)
        }
        let partial: PartialFile
        do throws(SandboxError) {
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
        // The first attempt starts from this length (the file is not written in between); later
        // ones measure again. Unreadable: the first attempt measures, and fails on it.
        var measured = length(of: partial)
        var mark = measured ?? 0
        var continuing = false
        while true {
            if Task.isCancelled { return await stopped(partial) }
            do throws(AttemptFailure) {
                let known = measured
                measured = nil
                let result = try await attemptOnce(partial, length: known, announcingResume: !continuing)
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
                            SandboxError(
                                .invalidResponse,
                                "\(url) could not be continued \(restarts) times in a row (its content keeps changing); try later.",
                                url: url),
                            resumable: false)
                    }
                }
            } catch {
                continuing = false
                if Task.isCancelled { return await stopped(partial) }
                if advanced(partial, past: &mark) { attempt = 1 }
                attempt += 1
                let retryAfter = error.retryAfter
                guard error.retryable,
                    let delay = session.configuration.retryPolicy.delay(
                        beforeAttempt: attempt, retryAfter: retryAfter, random: Double.random(in: 0...1))
                else {
                    await flush(partial)
                    // Kept unless the bytes are wrong; the session keeps them only when a validator can guard a resume, and says so.
                    return .failed(error.error, resumable: error.error.code != .checksumMismatch)
                }
                session.emit(.willRetry(task, attempt: attempt, delay: delay, error: error.error))
                do { try await Task.sleep(for: delay) } catch { return await stopped(partial) }
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
        do throws(SandboxError) {
            return try partial.length()
        } catch {
            session.logger.handled(error, "The next attempt reports it.", level: .debug)
            return nil
        }
    }

    /// The run was stopped: flush what is on disk so resume data is good after a power cut too.
    private func stopped(_ partial: PartialFile) async -> DownloadTaskMachine.RunResult {
        await flush(partial)
        let error = SandboxError(
            .cancelled, "The download of \(task.request.url.absoluteString) was stopped.",
            url: task.request.url.absoluteString)
        return .failed(error, resumable: true)
    }

    /// Best effort, for a run that ends with a failure of its own: a failure here goes to the
    /// session's logger. The resume offset is the file's length, whatever reached the disk, and
    /// the recorded length is informational (for listings).
    private func flush(_ partial: PartialFile) async {
        // On the engine (an fsync), and even when the task is cancelled: resume data needs it.
        let run = self
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            IOEngine.shared.schedule(
                {
                    run.flushNow(partial)
                    continuation.resume()
                },
                reject: { _ in
                    run.flushNow(partial)  // the engine has shut down: here, as nothing else can
                    continuation.resume()
                })
        }
    }

    private func flushNow(_ partial: PartialFile) {
        let url = task.request.url.absoluteString
        do throws(SandboxError) {
            try partial.synchronize()
        } catch {
            session.logger.handled(error, "The partial file of \(url) may lose its last bytes in a power cut.")
        }
        do throws(SandboxError) {
            let length = try partial.length()
            try session.store.update(task.taskIdentifier, durable: true) { $0.bytesOnDisk = length }
        } catch {
            session.logger.handled(error, "Listings show an older length for \(url).")
        }
    }

    /// One request and its body, received on the client's event loop (``AttemptReceiver``).
    /// `length`: the partial file's length when the caller has just measured it (`nil`: measured
    /// here). `announcingResume`: report `didResume` when it continues a file (not when it only
    /// asks for the rest after a short 206).
    private func attemptOnce(
        _ partial: PartialFile, length known: Int64?, announcingResume: Bool
    ) async throws(AttemptFailure) -> AttemptResult {
        guard let record = session.store.record(task.taskIdentifier) else {
            throw .fatal(SandboxError(.notFound, "The checkpoint lost task \(task.taskIdentifier)."))
        }
        let url = record.originalURL
        // The partial file's length and the digest of the bytes a continuation keeps, read on the
        // engine rather than on the event loop or the cooperative pool.
        let (length, plan, prefix) = try await Self.onEngine { () throws(AttemptFailure) in
            let length: Int64
            if let known {
                length = known
            } else {
                length = try AttemptFailure.fatalOnError { () throws(SandboxError) in try partial.length() }
            }
            let plan = Self.plan(record: record, length: length)
            var prefix: StreamingDigest?
            if plan.offset > 0, let expected = record.expectedDigest {
                var digest = StreamingDigest(expected.algorithm)
                try AttemptFailure.fatalOnError { () throws(SandboxError) in
                    try partial.hashPrefix(plan.offset, into: &digest)
                }
                prefix = digest
            }
            return (length, plan, prefix)
        }
        let receiver = AttemptReceiver(
            run: self, partial: partial, record: record, plan: plan, hadBytes: length > 0,
            announcingResume: announcingResume, prefix: prefix)
        let request: HTTPClient.Request
        do {
            request = try Self.request(for: record, plan: plan)
        } catch {
            throw AttemptFailure.classify(error, url: url)
        }
        let result = await receiver.execute(request, on: session.client)
        var outcome = receiver.outcome
        outcome.writer?.flushProgress()
        if case .failure(let error) = result {
            guard error is AttemptReceiver.Decided, let decision = outcome.decision else {
                throw AttemptFailure.classify(error, url: url)
            }
            return try await Self.onEngine { () throws(AttemptFailure) in
                try act(on: decision, record: record, partial: partial)
            }
        }
        guard let writer = outcome.writer else {
            throw AttemptFailure(
                error: SandboxError(
                    .invalidResponse, "The server's answer for \(url) ended before its head.", url: url),
                retryable: true)
        }
        // Flushing the file, checking its digest and the checkpoint: on the engine.
        return try await Self.onEngine { () throws(AttemptFailure) in try writer.finish() }
    }

    /// Runs `body` on the I/O engine and returns its result: a run's file and checkpoint work
    /// blocks neither the cooperative pool nor an event loop.
    ///
    /// - Throws: what `body` throws; a retryable ``SandboxCore/SandboxError/Code/interrupted`` when
    ///   the task was cancelled before the engine took the work.
    private static func onEngine<T: Sendable>(
        _ body: @escaping @Sendable () throws(AttemptFailure) -> T
    ) async throws(AttemptFailure) -> T {
        let outcome: Result<T, AttemptFailure>
        do {
            outcome = try await IOEngine.shared.run { Result { () throws(AttemptFailure) in try body() } }
        } catch {
            throw AttemptFailure(
                error: error as? SandboxError
                    ?? SandboxError(.interrupted, "The download's file work was interrupted: \(error)."),
                retryable: true)
        }
        return try outcome.get()
    }

    /// What an answer that is not written leads to: a retry, a failure, a restart without `Range`,
    /// or a file already complete.
    private func act(
        on decision: ResponseDecision, record: TaskRecord, partial: PartialFile
    ) throws(AttemptFailure) -> AttemptResult {
        let url = record.originalURL
        switch decision {
        case .retry(let retryAfter, let status):
            throw AttemptFailure(
                error: SandboxError(
                    .httpStatus, "The server answered \(status) \(Self.reason(status)) for \(url).", url: url),
                retryable: true,
                retryAfter: retryAfter.flatMap { RetryPolicy.retryAfter($0) })
        case .fail(let status):
            throw .fatal(
                SandboxError(
                    .httpStatus,
                    "The server answered \(status) \(Self.reason(status)) for \(url); nothing was written. Check the URL.",
                    url: url))
        case .invalid(let reason):
            throw AttemptFailure(
                error: SandboxError(
                    .invalidResponse, "The server's answer for \(url) is invalid: \(reason).", url: url),
                retryable: true)
        case .restartWithoutRange(let reason):
            try restart(partial, reason: reason)
            return .restarted
        case .alreadyComplete(let total):
            try AttemptFailure.fatalOnError { () throws(SandboxError) in
                try session.store.update(record.id) { $0.expectedLength = total }
                try finish(partial, record: record, length: total, digest: nil)
            }
            return .finished
        case .write:
            throw .fatal(SandboxError(.invalidResponse, "The answer for \(url) was not written.", url: url))
        }
    }

    /// The standard reason phrase of `status` (the answer's own is not kept past its head).
    private static func reason(_ status: Int) -> String {
        HTTPResponseStatus(statusCode: status).reasonPhrase
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
    ///
    /// - Throws: the client's error for a URL it cannot send to.
    static func request(for record: TaskRecord, plan: RequestPlan) throws -> HTTPClient.Request {
        var request = HTTPClientRequest.transfer(url: record.originalURL, headers: record.headers)
        if plan.offset > 0, let validator = plan.validator {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(plan.offset)-")
            request.headers.replaceOrAdd(name: "If-Range", value: validator.ifRangeValue)
        }
        return try HTTPClient.Request(url: request.url, method: request.method, headers: request.headers)
    }

    private func restart(_ partial: PartialFile, reason: RestartReason) throws(AttemptFailure) {
        try AttemptFailure.fatalOnError { () throws(SandboxError) in
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

    /// Reports `progress` to the task, the event stream and the delegate.
    func report(_ progress: TransferProgress) {
        task.update(progress: progress)
        session.emit(.didWriteData(task, progress))
    }

    /// Flushes the complete file (when configured) and checks its digest (re-reading it when `digest` is `nil` and one
    /// is expected, as after a 416 "already complete").
    func finish(
        _ partial: PartialFile, record: TaskRecord, length: Int64, digest: StreamingDigest?
    ) throws(SandboxError) {
        if session.configuration.synchronizesFinishedFiles { try partial.synchronize() }
        var computed: String?
        if let expected = record.expectedDigest {
            var running = digest ?? StreamingDigest(expected.algorithm)
            if digest == nil { try partial.hashPrefix(length, into: &running) }
            let hex = running.finalizeHex()
            guard hex == expected.hex else {
                throw SandboxError(
                    .checksumMismatch,
                    "The file from \(record.originalURL) has \(expected.algorithm.rawValue) \(hex), not the expected \(expected.hex); it was deleted.",
                    url: record.originalURL)
            }
            computed = hex
        }
        task.live.withLock { $0.finished = (length, computed) }
    }
}
