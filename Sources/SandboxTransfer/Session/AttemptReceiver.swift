import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Receives one attempt's answer through AsyncHTTPClient's delegate API, on the client's event
/// loop: decides from the head what to do with it and, when the body is to be written, hands each
/// part as it arrives to the ``BodyPipe``, whose writer (``BodyWriter``) puts it into the partial
/// file on the I/O engine — the event loop never touches the disk, and stops reading while the
/// pipe is full. The run waits only for the end of the request and of the writing — one hop back
/// to the cooperative pool per attempt, where the response body's async sequence cost a task
/// switch per part, and the client's per-request structured-concurrency machinery more.
///
/// An answer that is not to be written (retry, failure, restart, already complete) stops the
/// request at its head — its body is not read, as when a dropped `HTTPClientResponse` ended it —
/// and the run acts on ``Outcome/decision``.
final class AttemptReceiver: HTTPClientResponseDelegate {
    typealias Response = Void

    /// The head said not to write: the request's result when it stopped there.
    struct Decided: Error {}

    /// What the attempt received.
    struct Outcome {
        /// The decision when the answer was not to be written.
        var decision: ResponseDecision?
        /// The writer of the body, when the answer was to be written.
        var writer: BodyWriter?
    }

    private let run: TransferRun
    private let partial: PartialFile
    private let record: TaskRecord
    private let plan: RequestPlan
    private let hadBytes: Bool
    private let announcingResume: Bool
    private let prefix: StreamingDigest?
    /// Touched only by the client's callbacks, one at a time, and by ``outcome`` after the end.
    private let state = Mutex<(finalURL: URL?, decision: ResponseDecision?)>((nil, nil))
    /// Where the body's parts go.
    private let pipe: BodyPipe

    /// A receiver for the request `plan` describes. `hadBytes`: the partial file held bytes;
    /// `prefix`: the digest of its first `plan.offset` bytes, when a digest is expected.
    init(
        run: TransferRun, partial: PartialFile, record: TaskRecord, plan: RequestPlan, hadBytes: Bool,
        announcingResume: Bool, prefix: StreamingDigest?
    ) {
        self.run = run
        self.partial = partial
        self.record = record
        self.plan = plan
        self.hadBytes = hadBytes
        self.announcingResume = announcingResume
        self.prefix = prefix
        // With a rate limit each part waits for its write and its time, as it always did.
        pipe = BodyPipe(limit: run.session.configuration.rateLimit == nil ? BodyPipe.defaultLimit : 0)
    }

    /// What was received (read after ``execute(_:on:)`` returned).
    var outcome: Outcome { Outcome(decision: state.withLock { $0.decision }, writer: pipe.writer) }

    /// Sends `request` and waits for its end and for every part received to be written;
    /// cancelling the calling task cancels the request.
    ///
    /// - Returns: the request's failure: an ``AttemptFailure`` of the body's writing (first, when
    ///   the request failed too), ``Decided`` when the head stopped it, or the client's error.
    func execute(_ request: HTTPClient.Request, on client: HTTPClient) async -> Result<Void, any Error> {
        let task = client.execute(request: request, delegate: self, eventLoop: .indifferent, deadline: nil, logger: nil)
        let result: Result<Void, any Error> = await withTaskCancellationHandler {
            do {
                try await task.futureResult.get()
                return .success(())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            task.cancel()
        }
        await pipe.idle()
        if let failure = pipe.failure { return .failure(failure) }
        return result
    }

    func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLock { $0.finalURL = request.url }
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let decision = ResponseDecision.decide(status: Int(head.status.code), headers: head.headers, plan: plan)
        guard case .write(let offset, let end, let total, let restart) = decision else {
            state.withLock { $0.decision = decision }
            return task.eventLoop.makeFailedFuture(Decided())
        }
        let received = ContinuousClock.now
        let finalURL = state.withLock { $0.finalURL }
        // The writer empties the partial file when needed and writes the checkpoint, on the
        // engine, before the first part: the body is read meanwhile (into the pipe, bounded).
        let (run, partial, record, hadBytes, announcingResume, prefix) = (
            run, partial, record, hadBytes, announcingResume, prefix
        )
        pipe.start { () throws(AttemptFailure) in
            try BodyWriter(
                run: run, partial: partial, record: record,
                head: BodyWriter.Head(
                    offset: offset, end: end, total: total, restart: restart, headers: head.headers,
                    finalURL: finalURL, received: received),
                hadBytes: hadBytes, announcingResume: announcingResume, prefix: prefix)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // A writer exists only after a `.write` head; parts before one are dropped by the pipe.
        pipe.push(buffer, on: task.eventLoop)
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}
}
