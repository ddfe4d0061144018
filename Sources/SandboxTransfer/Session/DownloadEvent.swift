/// What a download session reports, in the order it happens for each task: the callbacks of
/// `URLSessionDownloadDelegate` as values. One type for both kinds of session — a foreground
/// ``DownloadSession`` (``DownloadEvent``, about its ``DownloadTask``s) and a ``BackgroundSession``
/// (``BackgroundEvent``, about the daemon's ``BackgroundTask``s) — so code that handles downloads
/// handles either.
///
/// Which session sends what: both send every case but ``didFinishEvents``, which only a background
/// session sends (once per attach, after what was queued while the app was away), and
/// ``taskIsWaitingForConnectivity(_:)``, which only the daemon sends (a foreground transfer fails
/// with a retryable error instead, and retries). A background session sends ``didWriteData(_:_:)``
/// only while the app is attached: progress is not queued.
public enum TransferEvent<Task: TransferTask>: Sendable {
    /// The task continues a partial file at `offset`; `expectedTotalBytes` is the whole file's size,
    /// `nil` when unknown.
    case didResume(Task, atOffset: Int64, expectedTotalBytes: Int64?)
    /// The task could not continue and starts again from zero, for `reason` (`nil` when the daemon
    /// that queued the event did not say, as an older one did not).
    case didRestart(Task, reason: RestartReason?)
    /// Bytes were written (at most about ten reports a second per task, and always the last).
    case didWriteData(Task, TransferProgress)
    /// A transfer attempt failed with a transient error; the next one starts after `delay` and
    /// continues from the bytes on disk. `error` is `nil` only when the daemon's record carried none.
    case willRetry(Task, attempt: Int, delay: Duration, error: SandboxError?)
    /// The task's host cannot be reached now (no route, or the link carrying it is down): the task
    /// waits, without counting a failed attempt, and continues from its partial file when the
    /// network comes back (`urlSession(_:taskIsWaitingForConnectivity:)`). Sent once per wait; by
    /// background sessions only.
    case taskIsWaitingForConnectivity(Task)
    /// The file is complete and checked. Without a destination in the request, `file` is a temporary
    /// file (a background session's waits in its staging folder in `Library/Caches`): move it before
    /// dropping the event, or it is deleted. With one, `file` was moved already
    /// (``DownloadedFile/movedPath``).
    case didFinishDownloading(Task, DownloadedFile)
    /// The task is over: `error` is `nil` on success; otherwise it carries resume data when the
    /// download can continue (also for tasks interrupted by the end of a previous process).
    case didComplete(Task, error: SandboxError?)
    /// Every event queued while the app was away has been delivered:
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`. Sent once per attach, by background
    /// sessions only.
    case didFinishEvents

    /// The task the event is about; `nil` for ``didFinishEvents``, which is about the session.
    public var task: Task? {
        switch self {
        case .didResume(let task, _, _), .didRestart(let task, _), .didWriteData(let task, _),
            .willRetry(let task, _, _, _), .taskIsWaitingForConnectivity(let task),
            .didFinishDownloading(let task, _), .didComplete(let task, _):
            task
        case .didFinishEvents:
            nil
        }
    }
}

/// What a foreground ``DownloadSession`` reports about its tasks.
public typealias DownloadEvent = TransferEvent<DownloadTask>

/// The delegate of a ``DownloadSession``, shaped like `URLSessionDownloadDelegate`.
///
/// Methods are called one at a time for a given task, on the task's transfer, so keep them short:
/// ``downloadSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:)`` and the progress
/// callback run on the HTTP client's event loop, between two parts of the body, where a method that
/// blocks holds up every transfer sharing that loop. Hand long work to a task or queue of your own.
/// Every method but ``downloadSession(_:downloadTask:didFinishDownloadingTo:)`` has an empty
/// default.
public protocol DownloadSessionDelegate: AnyObject, Sendable {
    /// The download finished: move `location` now (``DownloadedFile/move(to:)``); when this method
    /// returns, the file is deleted if it is still there.
    func downloadSession(
        _ session: DownloadSession, downloadTask: DownloadTask, didFinishDownloadingTo location: DownloadedFile)
    /// Progress, counting the resume offset; throttled to about ten calls a second.
    func downloadSession(
        _ session: DownloadSession, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64?)
    /// The download continues a partial file.
    func downloadSession(
        _ session: DownloadSession, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64?)
    /// The task is over; `error` carries resume data when it can continue.
    func downloadSession(_ session: DownloadSession, task: DownloadTask, didCompleteWithError error: SandboxError?)
}

extension DownloadSessionDelegate {
    /// Does nothing: progress is also on ``DownloadTask/progress`` and the event stream.
    public func downloadSession(
        _ session: DownloadSession, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64?
    ) {}
    /// Does nothing.
    public func downloadSession(
        _ session: DownloadSession, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64?
    ) {}
    /// Does nothing: ``DownloadTask/result()`` and the event stream report the end too.
    public func downloadSession(
        _ session: DownloadSession, task: DownloadTask, didCompleteWithError error: SandboxError?
    ) {}
}
