/// Where a backup is, as a ``BackupProgress`` reports it.
public enum BackupPhase: String, Sendable, Hashable, Codable {
    case scanning, storing
    case writingSnapshot = "writing-snapshot"
    case finished
}

/// A backup's progress: a value, safe to hand to another thread.
public struct BackupProgress: Sendable, Hashable, Codable {
    /// The phase the backup is in.
    public var phase: BackupPhase
    /// The app being backed up.
    public var app: String?
    /// Items of the app's container done so far.
    public var filesDone: Int
    /// Items of the app's container in all (known once it is scanned).
    public var filesTotal: Int
    /// Bytes read from the containers so far, and in all (known once an app is scanned).
    public var bytesDone: Int64
    /// Bytes of the app's files in all (known once it is scanned).
    public var bytesTotal: Int64
    /// Bytes written to the repository (new data, after deduplication).
    public var bytesStored: Int64
    /// The snapshot written, when ``phase`` is ``BackupPhase/finished``.
    public var snapshot: String?
}

/// The backup's states and the order between them, with no I/O: each event either moves the
/// progress on or is refused (a programmer error in the runner, caught by the tests).
struct BackupMachine {
    private(set) var progress = BackupProgress(
        phase: .scanning, app: nil, filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0, bytesStored: 0,
        snapshot: nil)

    enum Event {
        case scanned(app: String, files: Int, bytes: Int64)
        case stored(bytesRead: Int64, bytesWritten: Int64)
        case fileDone
        case appDone
        case indexWritten(bytesWritten: Int64)
        case snapshotWritten(id: String)
    }

    struct InvalidTransition: Error, Equatable {
        var phase: BackupPhase
    }

    /// Applies `event`; returns the new progress.
    @discardableResult
    mutating func handle(_ event: Event) throws(InvalidTransition) -> BackupProgress {
        switch (progress.phase, event) {
        case (.scanning, .scanned(let app, let files, let bytes)):
            progress.phase = .storing
            progress.app = app
            progress.filesTotal += files
            progress.bytesTotal += bytes
        case (.storing, .stored(let read, let written)):
            progress.bytesDone += read
            progress.bytesStored += written
        case (.storing, .fileDone):
            progress.filesDone += 1
        case (.storing, .appDone):
            progress.phase = .scanning
        case (.scanning, .indexWritten(let written)):
            progress.phase = .writingSnapshot
            progress.app = nil
            progress.bytesStored += written
        case (.writingSnapshot, .snapshotWritten(let id)):
            progress.phase = .finished
            progress.snapshot = id
        default:
            throw InvalidTransition(phase: progress.phase)
        }
        return progress
    }
}
