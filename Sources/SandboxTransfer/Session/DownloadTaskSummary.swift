import Foundation

/// A task of a session as listed by ``DownloadSession/storedTasks(identifier:in:)``.
public struct DownloadTaskSummary: Sendable, Hashable, Codable {
    /// The task's identifier in its session.
    public var taskIdentifier: Int
    /// The URL it was started with.
    public var url: String
    /// `interrupted` (unfinished when its process ended), `paused` (failed or cancelled with resume
    /// data), `finishing`, `completed`, `cancelled` or `failed`.
    public var state: String
    /// The partial file's length at the last checkpoint (the file's size once completed).
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
