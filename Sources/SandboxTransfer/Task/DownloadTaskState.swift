/// A download task's state, as `URLSessionTask.State` names them, plus `waiting` for a task that
/// was resumed but waits for a free slot (the session's concurrency limits).
public enum DownloadTaskState: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Created or suspended; ``DownloadTask/resume()`` starts it.
    case suspended
    /// Resumed, queued behind the session's concurrency limits.
    case waiting
    /// Transferring (or backing off between retries).
    case running
    /// Cancelled; the transfer is being stopped and will complete with a `cancelled` error.
    case cancelling
    /// Finished: succeeded, failed or cancelled. Terminal.
    case completed

    /// The state's name, e.g. `running`.
    public var description: String { rawValue }
}
