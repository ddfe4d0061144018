import SandboxCore
import SandboxTransfer

extension BackgroundEventRecord {
    /// `event` of background task `taskID` as a value; a finished file is described at `path`
    /// (where the daemon put it). `nil` for ``TransferEvent/didFinishEvents``, which is about a
    /// session, not a task (the daemon's own sessions never send it).
    init?(_ event: DownloadEvent, taskID: Int, finishedPath: String? = nil) {
        switch event {
        case .didResume(_, let offset, let total):
            self.init(taskID: taskID, kind: .resumed)
            self.offset = offset
            expectedTotalBytes = total
        case .didRestart(_, let reason):
            self.init(taskID: taskID, kind: .restarted)
            self.reason = reason
        case .didWriteData(_, let progress):
            self.init(taskID: taskID, kind: .progress)
            self.progress = progress
        case .willRetry(_, let attempt, let delay, let error):
            self.init(taskID: taskID, kind: .retry)
            self.attempt = attempt
            delayMilliseconds = delay.clampedMilliseconds
            errorCode = error?.code.description
            errorMessage = error?.message
        case .taskIsWaitingForConnectivity:
            self.init(taskID: taskID, kind: .waitingForConnectivity)
        case .didFinishDownloading(_, let file):
            self.init(taskID: taskID, kind: .finished)
            path = finishedPath ?? file.movedPath?.description
            suggestedFilename = file.suggestedFilename
            byteCount = file.byteCount
            digest = file.digest
        case .didComplete(_, let error):
            self.init(taskID: taskID, kind: .completed)
            errorCode = error?.code.description
            errorMessage = error?.message
        case .didFinishEvents:
            return nil
        }
    }
}
