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

/// A daemon-owned task as listed (`sandbox downloads`, ``BackgroundSession/allTasks()``).
public struct BackgroundTaskInfo: Codable, Sendable, Hashable {
    /// The background session it belongs to.
    public var session: String
    /// Its identifier in the session.
    public var taskID: Int
    /// The URL it downloads.
    public var url: String
    /// `waiting`, `running`, `completed` (finished, failed or cancelled: see ``errorCode``).
    public var state: DownloadTaskState
    /// Bytes written so far.
    public var bytesWritten: Int64
    /// The whole file's size, when known.
    public var expectedLength: Int64?
    /// Where the finished file is in the container.
    public var path: String?
    /// Why it failed, when it did.
    public var errorCode: String?

    package init(
        session: String, taskID: Int, url: String, state: DownloadTaskState, bytesWritten: Int64,
        expectedLength: Int64?, path: String?, errorCode: String?
    ) {
        self.session = session
        self.taskID = taskID
        self.url = url
        self.state = state
        self.bytesWritten = bytesWritten
        self.expectedLength = expectedLength
        self.path = path
        self.errorCode = errorCode
    }
}
