import Sandbox
import Synchronization

extension DownloadSession {
    /// Hands a finished, checked file over: moves it to the request's destination (checkpointing
    /// `finishing` first, so a kill in between is finished by the next session — unless the task
    /// was never checkpointed, a small download that a kill lets the next session forget), or gives
    /// it to the delegate and the event stream as a temporary file.
    func deliver(_ task: DownloadTask) {
        guard let record = store.record(task.taskIdentifier) else { return }
        let finished = task.live.withLock { $0.finished }
        let byteCount = finished?.byteCount ?? 0
        let name =
            record.destination?.filename.flatMap(SuggestedFilename.sanitize) ?? record.suggestedFilename
            ?? SuggestedFilename.fallback
        let file: DownloadedFile
        do throws(SandboxError) {
            let partial = try partialPath(record.partialName)
            if let destination = record.destination {
                try store.update(record.id, deferring: true) { $0.phase = .finishing(name: name) }
                let path = try container.moveDownload(
                    from: partial, into: destination.folder.path, name: name, dataProtection: dataProtection)
                try store.update(record.id) {
                    $0.phase = .completed(path: path.description)
                    $0.bytesOnDisk = byteCount
                }
                file = DownloadedFile(
                    container: container, temporaryPath: path, suggestedFilename: name, byteCount: byteCount,
                    digest: finished?.digest,
                    movedTo: path, dataProtection: dataProtection, logger: logger)
            } else {
                try store.update(record.id) {
                    $0.phase = .completed(path: nil)
                    $0.bytesOnDisk = byteCount
                }
                file = DownloadedFile(
                    container: container, temporaryPath: partial, suggestedFilename: name, byteCount: byteCount,
                    digest: finished?.digest,
                    dataProtection: dataProtection, logger: logger)
            }
        } catch {
            // The file is complete on disk: keep it, so resuming finds it whole (a 416) and retries the hand-over.
            return reportFailure(task, record: record, error: error, keepingPartial: true)
        }
        let outcome = DownloadOutcome(path: file.movedPath, byteCount: byteCount, digest: finished?.digest)
        task.update(
            progress: TransferProgress(
                bytesWritten: 0, totalBytesWritten: byteCount, totalBytesExpectedToWrite: byteCount))
        emit(.didFinishDownloading(task, file))
        emit(.didComplete(task, error: nil))
        finishTask(task, .success(outcome))
    }

    /// Reports a failed or cancelled task; keeps the partial file with resume data when asked and
    /// possible, deletes it otherwise.
    func fail(_ task: DownloadTask, with error: SandboxError, keepingPartial: Bool) {
        guard let record = store.record(task.taskIdentifier) else {
            return finishTask(task, .failure(error))
        }
        reportFailure(task, record: record, error: error, keepingPartial: keepingPartial)
    }

    private func reportFailure(_ task: DownloadTask, record: TaskRecord, error: SandboxError, keepingPartial: Bool) {
        let resumeData = keepingPartial ? resumeData(for: record) : nil
        if resumeData == nil { removePartial(named: record.partialName) }
        var reported = error.with(resumeData: resumeData)
        if reported.url == nil { reported.url = record.originalURL }
        if keepingPartial {
            reported.message +=
                resumeData == nil
                ? " " + unresumableExplanation(record) : " Resume it to continue from the bytes on disk."
        }
        do throws(SandboxError) {
            try store.update(record.id, durable: true) {
                $0.phase = .failed(
                    code: reported.code.description, message: reported.message, resumable: resumeData != nil)
                if resumeData == nil { $0.bytesOnDisk = 0 }  // its partial file was deleted
            }
        } catch {
            reported.message += " The checkpoint could not be updated either: \(error.message)"
        }
        emit(.didComplete(task, error: reported))
        finishTask(task, .failure(reported))
    }

    /// Why a download that was to be kept for resuming cannot continue, and what that means.
    private func unresumableExplanation(_ record: TaskRecord) -> String {
        let why =
            record.validator == nil
            ? "\(record.originalURL) sent no strong validator (a strong ETag, or a Last-Modified a second older than its Date) for an uncoded body"
            : "its partial file is gone"
        return "It cannot be resumed: \(why), so its bytes were deleted; downloading it again starts from zero."
    }
}
