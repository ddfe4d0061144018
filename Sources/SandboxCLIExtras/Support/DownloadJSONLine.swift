import SandboxTransfer

/// One `--json` line of `download` and of `downloads --wait`: one schema for foreground and
/// background downloads. A download's size is always `bytes` (written so far, or the finished
/// file's) and `total` (the whole file's, when known); `task` names a background task.
///
/// `resumed` (`offset`, `total`), `restarted` (`reason`), `progress` (`bytes`, `total`,
/// `bytesPerSecond`, `secondsRemaining`), `retry` (`attempt`, `error`), `waiting-for-connectivity`,
/// `finished` (`path`, `bytes`, `sha256`), `completed` (`error`: the code), `all-delivered`.
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

    init(
        event: String, task: Int? = nil, offset: Int64? = nil, reason: String? = nil, attempt: Int? = nil,
        bytes: Int64? = nil, total: Int64? = nil, path: String? = nil, sha256: String? = nil, error: String? = nil
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
        self.error = error
    }

    /// A `progress` line: the bytes in the file so far, of `total`.
    init(_ progress: TransferProgress, task: Int? = nil) {
        self.init(
            event: "progress", task: task, bytes: progress.totalBytesWritten, total: progress.totalBytesExpectedToWrite)
        bytesPerSecond = progress.bytesPerSecond.map { Int64($0) }
        secondsRemaining = progress.secondsRemaining
    }
}
