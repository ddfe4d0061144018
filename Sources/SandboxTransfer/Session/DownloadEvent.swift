/// What a download session reports, in the order it happens for each task: the callbacks of
/// `URLSessionDownloadDelegate` as values, plus restarts and retries.
public enum DownloadEvent: Sendable {
    /// The task continues a partial file at `offset`; `expectedTotalBytes` is the whole file's size,
    /// `nil` when unknown.
    case didResume(DownloadTask, atOffset: Int64, expectedTotalBytes: Int64?)
    /// The task could not continue and starts again from zero, for `reason`.
    case didRestart(DownloadTask, reason: RestartReason)
    /// Bytes were written (at most about ten reports a second per task, and always the last).
    case didWriteData(DownloadTask, TransferProgress)
    /// A transfer attempt failed with a transient error; the next one starts after `delay` and
    /// continues from the bytes on disk.
    case willRetry(DownloadTask, attempt: Int, delay: Duration, error: SandboxError)
    /// The file is complete and checked. Without a destination in the request, `file` is a temporary
    /// file: move it before dropping the event, or it is deleted. With one, `file` was moved already
    /// (``DownloadedFile/movedPath``).
    case didFinishDownloading(DownloadTask, DownloadedFile)
    /// The task is over: `error` is `nil` on success; otherwise it carries resume data when the
    /// download can continue (also for tasks interrupted by the end of a previous process).
    case didComplete(DownloadTask, error: SandboxError?)

    /// The task the event is about.
    public var task: DownloadTask {
        switch self {
        case .didResume(let task, _, _), .didRestart(let task, _), .didWriteData(let task, _),
            .willRetry(let task, _, _, _),
            .didFinishDownloading(let task, _), .didComplete(let task, _):
            task
        }
    }
}

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
