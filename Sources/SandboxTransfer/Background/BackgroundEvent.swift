/// What a background session reports: the events of ``DownloadEvent``, about daemon-owned tasks,
/// then ``didFinishEvents`` once everything queued while the app was away has been delivered.
public enum BackgroundEvent: Sendable {
    /// The task continues a partial file at `offset`.
    case didResume(BackgroundTask, atOffset: Int64, expectedTotalBytes: Int64?)
    /// The task starts again from zero, for `reason`.
    case didRestart(BackgroundTask, reason: RestartReason?)
    /// Bytes were written (only while the app is attached: progress is not queued).
    case didWriteData(BackgroundTask, TransferProgress)
    /// An attempt failed with a transient error; the next starts after `delay`.
    case willRetry(BackgroundTask, attempt: Int, delay: Duration, error: SandboxError?)
    /// The task's host cannot be reached now (no route, or the link carrying it is down): the
    /// task waits, without counting a failed attempt, and continues from its partial file when
    /// the network comes back (`urlSession(_:taskIsWaitingForConnectivity:)`). Sent once per wait.
    case taskIsWaitingForConnectivity(BackgroundTask)
    /// The file is complete. Without a destination in the request it waits in the session's staging
    /// folder in `Library/Caches`: move it while handling the event, or it is deleted (as iOS does
    /// with `location`); with one, it is there already (``DownloadedFile/movedPath``).
    case didFinishDownloading(BackgroundTask, DownloadedFile)
    /// The task is over; `error` is `nil` on success.
    case didComplete(BackgroundTask, error: SandboxError?)
    /// Every event queued while the app was away has been delivered:
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`. Sent once per attach.
    case didFinishEvents
}

/// The delegate of a ``BackgroundSession``, shaped like `URLSessionDownloadDelegate` with
/// `URLSessionDidFinishEventsForBackgroundURLSession`. Called one event at a time, in order; an
/// event is acknowledged to the daemon (and never delivered again) when its method returns.
public protocol BackgroundSessionDelegate: AnyObject, Sendable {
    /// The download finished: move `location` now; when this returns, it is deleted if still there.
    func backgroundSession(
        _ session: BackgroundSession, downloadTask: BackgroundTask, didFinishDownloadingTo location: DownloadedFile)
    /// The task waits for the network to come back (``BackgroundEvent/taskIsWaitingForConnectivity(_:)``).
    func backgroundSession(_ session: BackgroundSession, taskIsWaitingForConnectivity task: BackgroundTask)
    /// Progress, while attached.
    func backgroundSession(
        _ session: BackgroundSession, downloadTask: BackgroundTask, didWriteData progress: TransferProgress)
    /// The task is over.
    func backgroundSession(
        _ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: SandboxError?)
    /// Everything queued while the app was away has been delivered.
    func backgroundSessionDidFinishEvents(_ session: BackgroundSession)
}

extension BackgroundSessionDelegate {
    /// Does nothing.
    public func backgroundSession(_ session: BackgroundSession, taskIsWaitingForConnectivity task: BackgroundTask) {}
    /// Does nothing.
    public func backgroundSession(
        _ session: BackgroundSession, downloadTask: BackgroundTask, didWriteData progress: TransferProgress
    ) {}
    /// Does nothing.
    public func backgroundSession(
        _ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: SandboxError?
    ) {}
    /// Does nothing.
    public func backgroundSessionDidFinishEvents(_ session: BackgroundSession) {}
}
