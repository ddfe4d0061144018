import Foundation
import Synchronization

/// A download owned by `sandboxd`, as the app sees it: `URLSessionDownloadTask` of a background
/// session. Its state and progress follow the events the app receives.
public final class BackgroundTask: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The task's identifier in its session; stable across the app's and the daemon's restarts.
    public let taskIdentifier: Int
    /// The URL it downloads.
    public let url: String
    weak let session: BackgroundSession?

    private struct Live {
        var state: DownloadTaskState
        var progress: TransferProgress
        var error: SandboxError?
    }

    private let live: Mutex<Live>

    init(info: DownloadTaskSummary.Wire, session: BackgroundSession) {
        taskIdentifier = info.taskID
        url = info.url
        self.session = session
        live = Mutex(
            Live(
                state: info.state,
                progress: TransferProgress(
                    bytesWritten: 0, totalBytesWritten: info.bytesWritten,
                    totalBytesExpectedToWrite: info.expectedLength),
                error: info.errorCode.map { SandboxError(SandboxError.Code($0), "") }))
    }

    /// The ``taskIdentifier``.
    public var id: Int { taskIdentifier }
    /// `running` until the task completes (as far as the events received tell).
    public var state: DownloadTaskState { live.withLock { $0.state } }
    /// The latest progress received.
    public var progress: TransferProgress { live.withLock { $0.progress } }
    /// Why it failed, once completed unsuccessfully.
    public var error: SandboxError? { live.withLock { $0.error } }

    /// Cancels the task in the daemon: it completes with `cancelled`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when it has completed already;
    ///   `daemon-unavailable` when the session is detached.
    public func cancel() async throws(SandboxError) {
        guard let session else {
            throw SandboxError(.sessionInvalidated, "The background session of task \(taskIdentifier) is gone.")
        }
        try await session.cancel(taskIdentifier)
    }

    func apply(_ record: BackgroundEventRecord) {
        live.withLock { live in
            switch record.kind {
            case .progress:
                if let progress = record.progress { live.progress = progress }
            case .completed:
                live.state = .completed
                live.error = record.error
            case .finished:
                if let count = record.byteCount {
                    live.progress = TransferProgress(
                        bytesWritten: 0, totalBytesWritten: count, totalBytesExpectedToWrite: count)
                }
            case .resumed, .restarted, .retry:
                live.state = .running
            case .waitingForConnectivity:
                live.state = .suspended
            }
        }
    }

    /// Tasks are equal when they are the same object.
    public static func == (lhs: BackgroundTask, rhs: BackgroundTask) -> Bool { lhs === rhs }
    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// `background task <id> (<url>, <state>)`.
    public var description: String { "background task \(taskIdentifier) (\(url), \(state))" }
}
