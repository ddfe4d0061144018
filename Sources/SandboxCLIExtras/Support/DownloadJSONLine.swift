import SandboxCore
import SandboxTransfer

/// One `--json` line of `download` and of `downloads --wait`: one schema for foreground and
/// background downloads. A download's size is always `bytes` (written so far, or the finished
/// file's) and `total` (the whole file's, when known); `task` names a background task.
///
/// `resumed` (`offset`, `total`), `restarted` (`reason`), `progress` (`bytes`, `total`,
/// `bytesPerSecond`, `secondsRemaining`), `retry` (`attempt`, `error`, `message`),
/// `waiting-for-connectivity`, `finished` (`path`, `bytes`, `sha256`), `completed` (`error`,
/// `message`, on failure), `all-delivered`. `error` is always the error's code; `message` says it
/// for a person.
struct DownloadJSONLine: Encodable, Equatable {
    var event: String
    var task: Int?
    var offset: Int64?
    var reason: String?
    var attempt: Int?
    var bytes: Int64?
    var total: Int64?
    var bytesPerSecond: Int64?
    var secondsRemaining: Double?
    var path: String?
    var sha256: String?
    var error: String?
    var message: String?

    init(
        event: String, task: Int? = nil, offset: Int64? = nil, reason: String? = nil, attempt: Int? = nil,
        bytes: Int64? = nil, total: Int64? = nil, path: String? = nil, sha256: String? = nil,
        error: SandboxError? = nil
    ) {
        self.event = event
        self.task = task
        self.offset = offset
        self.reason = reason
        self.attempt = attempt
        self.bytes = bytes
        self.total = total
        self.path = path
        self.sha256 = sha256
        self.error = error?.code.description
        self.message = error?.message
    }

    /// The line of `event`, of background task `task` when one is named. A `finished` line names the
    /// file at `finishedPath`, where the caller has it now (else where the session put it).
    init<Task>(_ event: TransferEvent<Task>, task: Int? = nil, finishedPath: String? = nil) {
        switch event {
        case .didResume(_, let offset, let total):
            self.init(event: "resumed", task: task, offset: offset, total: total)
        case .didRestart(_, let reason):
            self.init(event: "restarted", task: task, reason: reason?.rawValue)
        case .didWriteData(_, let progress):
            self.init(progress, task: task)
        case .willRetry(_, let attempt, _, let error):
            self.init(event: "retry", task: task, attempt: attempt, error: error)
        case .taskIsWaitingForConnectivity:
            self.init(event: "waiting-for-connectivity", task: task)
        case .didFinishDownloading(_, let file):
            self.init(
                event: "finished", task: task, bytes: file.byteCount,
                path: finishedPath ?? (file.movedPath ?? file.temporaryPath).description, sha256: file.digest)
        case .didComplete(_, let error):
            self.init(event: "completed", task: task, error: error)
        case .didFinishEvents:
            self.init(event: "all-delivered")
        }
    }

    /// A `progress` line: the bytes in the file so far, of `total`.
    init(_ progress: TransferProgress, task: Int? = nil) {
        self.init(
            event: "progress", task: task, bytes: progress.totalBytesWritten, total: progress.totalBytesExpectedToWrite)
        bytesPerSecond = progress.bytesPerSecond.map { Int64($0) }
        secondsRemaining = progress.secondsRemaining
    }
}
