import Foundation

/// A download task as listed, of either kind of session: one type for a foreground
/// ``DownloadSession``'s task, read from its checkpoint without opening the session
/// (``DownloadSession/storedTasks(identifier:container:)``), and a task `sandboxd` runs for a
/// ``BackgroundSession`` (``BackgroundSession/taskList()``,
/// ``BackgroundSession/tasks(of:in:startingDaemon:)``).
public struct DownloadTaskSummary: Sendable, Hashable, Codable {
    /// Where a listed task is in its life: one set of states for both kinds of session. Each case
    /// says which listings show it.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// Background: held by the daemon (a discretionary task while others run) or waiting for
        /// the network to come back.
        case suspended
        /// Background: queued behind the daemon's concurrency limits.
        case waiting
        /// Background: transferring, or backing off between retries.
        case running
        /// Background: cancelled; the daemon is stopping it.
        case cancelling
        /// Foreground: unfinished when its process ended; it continues from its partial file when
        /// the session is opened again.
        case interrupted
        /// Foreground: failed or cancelled with resume data; its partial file is kept.
        case paused
        /// Foreground: complete and checked, being moved to its destination.
        case finishing
        /// Both: finished successfully.
        case completed
        /// Both: cancelled (a foreground task: without resume data).
        case cancelled
        /// Both: failed (a foreground task: without resume data); ``DownloadTaskSummary/errorCode``
        /// says why.
        case failed

        /// The state's name, e.g. `running`.
        public var description: String { rawValue }

        /// Whether the task is over: `completed`, `cancelled` or `failed`.
        public var isFinished: Bool {
            switch self {
            case .completed, .cancelled, .failed: true
            case .suspended, .waiting, .running, .cancelling, .interrupted, .paused, .finishing: false
            }
        }
    }

    /// The session the task belongs to: the foreground session's identifier, or the background
    /// session's (as the app named it in its ``BackgroundConfiguration``).
    public var sessionIdentifier: String
    /// The task's identifier in its session.
    public var taskIdentifier: Int
    /// The URL it was started with.
    public var url: String
    /// Where it is in its life.
    public var state: State
    /// The bytes the task has: for a foreground task, on disk when listed — the partial file's
    /// length for an interrupted, paused or finishing task (0 when it is gone), the file's size
    /// once completed, 0 for a failed or cancelled one (its partial file is deleted); for a task
    /// `sandboxd` lists, the bytes its transfer wrote — counted live while it runs, as recorded
    /// when it completed.
    public var bytesOnDisk: Int64
    /// The file's whole size, when known.
    public var expectedLength: Int64?
    /// Where a completed download went, in the container.
    public var path: String?
    /// Why it failed or stopped: the error's code (`SandboxError.code`).
    public var errorCode: String?
    /// The error's message, with ``errorCode``; `nil` for a task `sandboxd` lists (its queue
    /// keeps the code only).
    public var errorMessage: String?
    /// When a foreground task's checkpoint last changed; `nil` for a task `sandboxd` lists.
    public var updatedAt: Date?
    /// Whether the task runs for a background session: listed by `sandboxd`, or a task of the
    /// download session the daemon runs a background session in
    /// (``DownloadSession/isBackground(identifier:)``).
    public var isBackground: Bool

    package init(
        sessionIdentifier: String, taskIdentifier: Int, url: String, state: State, bytesOnDisk: Int64,
        expectedLength: Int64?, path: String?, errorCode: String?, errorMessage: String?, updatedAt: Date?,
        isBackground: Bool
    ) {
        self.sessionIdentifier = sessionIdentifier
        self.taskIdentifier = taskIdentifier
        self.url = url
        self.state = state
        self.bytesOnDisk = bytesOnDisk
        self.expectedLength = expectedLength
        self.path = path
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.updatedAt = updatedAt
        self.isBackground = isBackground
    }
}

/// A daemon-owned task as listed: ``DownloadTaskSummary``, the one listing type of both kinds of
/// session.
@available(*, deprecated, renamed: "DownloadTaskSummary")
public typealias BackgroundTaskInfo = DownloadTaskSummary

extension DownloadTaskSummary {
    /// The background session it belongs to.
    @available(*, deprecated, renamed: "sessionIdentifier")
    public var session: String { sessionIdentifier }
    /// Its identifier in the session.
    @available(*, deprecated, renamed: "taskIdentifier")
    public var taskID: Int { taskIdentifier }
    /// The bytes its transfer wrote.
    @available(*, deprecated, renamed: "bytesOnDisk")
    public var bytesWritten: Int64 { bytesOnDisk }
    /// Why it failed or stopped: the error's message.
    @available(*, deprecated, renamed: "errorMessage")
    public var error: String? { errorMessage }
}
