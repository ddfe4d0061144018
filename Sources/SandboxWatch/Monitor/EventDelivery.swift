/// Hands events to the consumer through a bounded `AsyncStream` without losing anything silently.
///
/// The stream buffers at most `limit` events (`.bufferingOldest`). When the consumer falls that far
/// behind, the event that does not fit is dropped and delivery stops; it resumes with a single
/// ``FolderEvent/overflow`` as soon as the consumer has made room (the stream cannot say when that
/// is, so the reader retries, backing off from 20 ms to 1 s). Memory stays bounded, and a consumer
/// always learns that it must re-read the folder, which is the truth.
struct EventDelivery: Sendable {
    typealias Instant = ContinuousClock.Instant

    let continuation: AsyncStream<FolderEvent>.Continuation
    /// How soon to retry delivering the overflow marker once the consumer is behind; doubled after
    /// each failed retry, up to ``maximumRetryInterval``.
    let retryInterval: Duration
    let maximumRetryInterval: Duration = .seconds(1)
    /// The failed retries since the consumer fell behind.
    private var failedRetries = 0
    private(set) var isBehind = false
    private(set) var isTerminated = false
    private(set) var retryAt: Instant?

    init(continuation: AsyncStream<FolderEvent>.Continuation, retryInterval: Duration = .milliseconds(20)) {
        self.continuation = continuation
        self.retryInterval = retryInterval
    }

    /// Hands `event` over; while the consumer is behind, events are dropped (the overflow marker
    /// stands for them).
    mutating func deliver(_ event: FolderEvent, at now: Instant) {
        guard !isTerminated else { return }
        retry(at: now)
        guard !isBehind else { return }
        switch continuation.yield(event) {
        case .enqueued:
            break
        case .dropped:
            isBehind = true
            failedRetries = 0
            retryAt = now + backoff.delay(retry: failedRetries)
        case .terminated:
            isTerminated = true
        @unknown default:
            isTerminated = true
        }
    }

    /// Tries to deliver the overflow marker, if one is owed and the retry is due.
    mutating func retry(at now: Instant) {
        guard isBehind, !isTerminated, let due = retryAt, due <= now else { return }
        switch continuation.yield(.overflow) {
        case .enqueued:
            isBehind = false
            retryAt = nil
        case .dropped:
            failedRetries += 1
            retryAt = now + backoff.delay(retry: failedRetries)
        case .terminated:
            isTerminated = true
        @unknown default:
            isTerminated = true
        }
    }

    private var backoff: Backoff { Backoff(initial: retryInterval, maximum: maximumRetryInterval) }

    mutating func finish() {
        continuation.finish()
        isTerminated = true
    }
}
