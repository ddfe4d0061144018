import Foundation

/// A download task as both kinds of session report it — a foreground ``DownloadTask`` or a
/// daemon-owned ``BackgroundTask`` — as `URLSessionTask` is for both kinds of `URLSession` on iOS:
/// code that follows downloads (``TransferEvent``, a progress display, a listing) takes either.
///
/// The two differ in what they can do, not in what they say: a foreground task is resumed,
/// suspended and cancelled in the process; a background one lives in `sandboxd` and is cancelled
/// through it.
public protocol TransferTask: AnyObject, Sendable, Hashable, Identifiable, CustomStringConvertible
where ID == Int {
    /// The task's number in its session.
    var taskIdentifier: Int { get }
    /// The URL it downloads, as it was given.
    var url: String { get }
    /// Where it is in its life.
    var state: DownloadTaskState { get }
    /// Bytes written so far, of how many, and how fast.
    var progress: TransferProgress { get }
    /// Why it failed, once it has.
    var error: SandboxError? { get }
}

extension DownloadTask: TransferTask {
    /// The URL of the task's request.
    public var url: String { request.url.absoluteString }
}

extension BackgroundTask: TransferTask {}
