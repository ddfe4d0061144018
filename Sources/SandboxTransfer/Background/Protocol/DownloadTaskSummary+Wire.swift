extension DownloadTaskSummary {
    /// A task `sandboxd` runs as its `tasks` answer carries it, with the keys the protocol has
    /// always had (`session`, `taskID`, `url`, `state` — a ``DownloadTaskState`` —, `bytesWritten`,
    /// `expectedLength`, `path`, `errorCode`), and as its queue's `task` rows hold it. The daemon
    /// lists with it; the app maps it to the public listing (``DownloadTaskSummary/init(_:)``).
    package struct Wire: Codable, Sendable, Hashable {
        package var session: String
        package var taskID: Int
        package var url: String
        /// `waiting`, `running`, `suspended`, `cancelling` while the daemon has it, `completed`
        /// (finished, failed or cancelled: see ``errorCode``).
        package var state: DownloadTaskState
        package var bytesWritten: Int64
        package var expectedLength: Int64?
        package var path: String?
        package var errorCode: String?

        package init(
            session: String, taskID: Int, url: String, state: DownloadTaskState, bytesWritten: Int64,
            expectedLength: Int64?, path: String?, errorCode: String?
        ) {
            self.session = session
            self.taskID = taskID
            self.url = url
            self.state = state
            self.bytesWritten = bytesWritten
            self.expectedLength = expectedLength
            self.path = path
            self.errorCode = errorCode
        }
    }

    /// The listing of a task `sandboxd` runs: a `completed` one is ``State/failed`` or
    /// ``State/cancelled`` when it carries an error code (`cancelled` for a cancellation).
    package init(_ wire: Wire) {
        let state: State =
            switch wire.state {
            case .suspended: .suspended
            case .waiting: .waiting
            case .running: .running
            case .cancelling: .cancelling
            case .completed:
                wire.errorCode.map { SandboxError.Code($0) == .cancelled ? .cancelled : .failed } ?? .completed
            }
        self.init(
            sessionIdentifier: wire.session, taskIdentifier: wire.taskID, url: wire.url, state: state,
            bytesOnDisk: wire.bytesWritten, expectedLength: wire.expectedLength, path: wire.path,
            errorCode: wire.errorCode, errorMessage: nil, updatedAt: nil, isBackground: true)
    }
}
