import Foundation

/// A task of a session as listed by ``DownloadSession/storedTasks(identifier:container:)``.
public struct DownloadTaskSummary: Sendable, Hashable, Codable {
    /// The session the task belongs to.
    public var sessionIdentifier: String
    /// The task's identifier in its session.
    public var taskIdentifier: Int
    /// The URL it was started with.
    public var url: String
    /// `interrupted` (unfinished when its process ended), `paused` (failed or cancelled with resume
    /// data), `finishing`, `completed`, `cancelled` or `failed`.
    public var state: String
    /// The bytes on disk when listed: the partial file's length for an interrupted, paused or
    /// finishing task (0 when it is gone), the file's size once completed, 0 for a failed or
    /// cancelled one (its partial file is deleted).
    public var bytesOnDisk: Int64
    /// The file's whole size, when known.
    public var expectedLength: Int64?
    /// Where a completed download went.
    public var path: String?
    /// Why it failed or stopped.
    public var error: String?
    /// When its checkpoint last changed.
    public var updatedAt: Date
}
