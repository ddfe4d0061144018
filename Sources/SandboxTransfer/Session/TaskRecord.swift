import Foundation

/// One task as the session checkpoints it: enough to report it, resume it, or finish handing it
/// over after the process was killed.
///
/// `package` so that fuzz targets can feed checkpoints to ``decoding(_:path:)``.
package struct TaskRecord: Sendable, Codable, Hashable {
    /// Where the task is in its life, as persisted. Transitional states (`waiting`, `running`,
    /// `suspending`) are all `active`: after a kill they are reported as interrupted.
    package enum Phase: Sendable, Codable, Hashable {
        /// Not finished: suspended, waiting or running.
        case active
        /// Complete and checked; being moved to its destination under `name`.
        case finishing(name: String)
        /// Handed over; `path` is where the file went (`nil`: handed to the app as a temporary file).
        case completed(path: String?)
        /// Failed or cancelled; `resumable` when the partial file was kept for resume data.
        case failed(code: String, message: String, resumable: Bool)
    }

    var id: Int
    var originalURL: String
    var finalURL: String?
    var headers: [String: String]
    var expectedDigest: ExpectedDigest?
    var destination: DownloadDestination?
    var phase: Phase
    var validator: Validator?
    var expectedLength: Int64?
    /// The partial file's name in the session's folder.
    var partialName: String
    /// The partial file's length at the last checkpoint (for listings; resuming uses the file's
    /// actual length).
    var bytesOnDisk: Int64
    var suggestedFilename: String?
    var lastRestartReason: RestartReason?
    var createdAt: Date
    var updatedAt: Date

    var isUnfinished: Bool { phase == .active }

    /// Whether the task was handed over.
    var isCompleted: Bool {
        if case .completed = phase { true } else { false }
    }

    /// Whether the task's partial file is meant to be on disk: unfinished, being handed over, or
    /// kept for resume data.
    var keepsPartialFile: Bool {
        switch phase {
        case .active, .finishing: true
        case .failed(_, _, let resumable): resumable
        case .completed: false
        }
    }

    /// A public summary, for session `session`, with `partialLength` the partial file's length now
    /// (`nil`: it is gone).
    func summary(session: String, partialLength: Int64?) -> DownloadTaskSummary {
        let state: DownloadTaskSummary.State
        var path: String?
        var error: (code: String, message: String)?
        switch phase {
        case .active: state = .interrupted
        case .finishing: state = .finishing
        case .completed(let location):
            state = .completed
            path = location
        case .failed(let code, let message, let resumable):
            state = resumable ? .paused : (SandboxError.Code(code) == .cancelled ? .cancelled : .failed)
            error = (code, message)
        }
        let bytes: Int64
        if keepsPartialFile {
            bytes = partialLength ?? 0
        } else if case .completed = phase {
            bytes = bytesOnDisk  // the finished file's size
        } else {
            bytes = 0  // failed or cancelled: the partial file was deleted
        }
        return DownloadTaskSummary(
            sessionIdentifier: session, taskIdentifier: id, url: originalURL, state: state, bytesOnDisk: bytes,
            expectedLength: expectedLength, path: path, errorCode: error?.code, errorMessage: error?.message,
            updatedAt: updatedAt, isBackground: DownloadSession.isBackground(identifier: session))
    }
}
