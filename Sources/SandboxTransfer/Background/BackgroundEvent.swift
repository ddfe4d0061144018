/// What a ``BackgroundSession`` reports about the daemon's tasks: the events of every download
/// session (``TransferEvent``), then ``TransferEvent/didFinishEvents`` once everything queued while
/// the app was away has been delivered.
public typealias BackgroundEvent = TransferEvent<BackgroundTask>

/// The delegate of a ``BackgroundSession``, shaped like `URLSessionDownloadDelegate` with
/// `URLSessionDidFinishEventsForBackgroundURLSession`. Called one event at a time, in order; an
/// event is acknowledged to the daemon (and never delivered again) when its method returns.
public protocol BackgroundSessionDelegate: AnyObject, Sendable {
    /// The download finished: move `location` now; when this returns, it is deleted if still there.
    func backgroundSession(
        _ session: BackgroundSession, downloadTask: BackgroundTask, didFinishDownloadingTo location: DownloadedFile)
    /// The task waits for the network to come back (``TransferEvent/taskIsWaitingForConnectivity(_:)``).
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
