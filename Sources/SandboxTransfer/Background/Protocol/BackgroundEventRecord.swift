import Foundation

/// One event of a background task as the daemon queues and sends it: a ``DownloadEvent`` as a
/// value, with its place in the session's queue.
public struct BackgroundEventRecord: Codable, Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, Hashable {
        /// The task continues a partial file at ``offset``.
        case resumed
        /// The task starts again from zero, for ``reason``.
        case restarted
        /// Bytes were written (``progress``). Not queued: sent only to an attached app.
        case progress
        /// A transfer attempt failed (``error``); attempt ``attempt`` starts after ``delayMilliseconds``.
        case retry
        /// The task's host is unreachable: it waits for the network to come back, then continues
        /// (iOS's `taskIsWaitingForConnectivity`). Not a failed attempt.
        case waitingForConnectivity
        /// The file is complete: at ``path`` in the container (the staging folder, or the request's
        /// destination).
        case finished
        /// The task is over; ``error`` is `nil` on success.
        case completed
    }

    /// The event's place in its session's queue, from 1, increasing; 0 for progress (not queued).
    public var sequence: Int64
    /// The background task it is about.
    public var taskID: Int
    /// What happened.
    public var kind: Kind
    /// `resumed`: where in the file the task continues.
    public var offset: Int64?
    /// `resumed`: the whole file's size, when the server announced it.
    public var expectedTotalBytes: Int64?
    /// `progress`: the bytes written so far and expected.
    public var progress: TransferProgress?
    /// `restarted`: why the partial file could not be continued, when known.
    public var reason: RestartReason?
    /// `retry`: the number of the attempt that starts next.
    public var attempt: Int?
    /// `retry`: how long until it starts, in milliseconds.
    public var delayMilliseconds: Int64?
    /// The finished file's path in the container.
    public var path: String?
    /// `finished`: the file's name as the server suggested it, sanitized.
    public var suggestedFilename: String?
    /// `finished`: the file's size in bytes.
    public var byteCount: Int64?
    /// `finished`: the digest checked during the download (lower-case hex), if one was asked for.
    public var digest: String?
    /// The failure's code and message, on `retry` and on an unsuccessful `completed`.
    public var errorCode: String?
    /// The failure's message, with ``errorCode``.
    public var errorMessage: String?

    /// An event; the other values are `nil`.
    public init(sequence: Int64 = 0, taskID: Int, kind: Kind) {
        self.sequence = sequence
        self.taskID = taskID
        self.kind = kind
    }

    /// The failure the event carries, if any.
    public var error: SandboxError? {
        errorCode.map { SandboxError(SandboxError.Code($0), errorMessage ?? "") }
    }

    /// Whether the event is kept until the app handles it (every kind but progress).
    public var isQueued: Bool { kind != .progress }
}
