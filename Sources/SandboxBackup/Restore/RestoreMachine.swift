/// Where a restore is.
public enum RestorePhase: String, Sendable, Hashable, Codable {
    case staging, exchanging, keychain, finished
}

/// A restore's progress: a value, safe to hand to another thread.
public struct RestoreProgress: Sendable, Hashable, Codable {
    /// The phase the restore is in.
    public var phase: RestorePhase
    /// The app being restored.
    public var app: String
    /// Items of the snapshot staged so far.
    public var filesDone: Int
    /// Items of the snapshot in all.
    public var filesTotal: Int
    /// Bytes of file contents written so far.
    public var bytesDone: Int64
    /// Bytes of file contents in all.
    public var bytesTotal: Int64
}

/// The restore's states, with no I/O: staging (files written beside the container) → exchanging
/// (one `renameat2(RENAME_EXCHANGE)`: before it the old container stands whole, after it the new
/// one) → keychain → finished. Anything else is refused.
struct RestoreMachine {
    private(set) var progress: RestoreProgress

    init(app: String, files: Int, bytes: Int64) {
        progress = RestoreProgress(
            phase: .staging, app: app, filesDone: 0, filesTotal: files, bytesDone: 0, bytesTotal: bytes)
    }

    enum Event {
        case wrote(bytes: Int64)
        case fileDone
        case staged
        case exchanged
        case keychainDone
    }

    struct InvalidTransition: Error, Equatable {
        var phase: RestorePhase
    }

    @discardableResult
    mutating func handle(_ event: Event) throws(InvalidTransition) -> RestoreProgress {
        switch (progress.phase, event) {
        case (.staging, .wrote(let bytes)): progress.bytesDone += bytes
        case (.staging, .fileDone): progress.filesDone += 1
        case (.staging, .staged): progress.phase = .exchanging
        case (.exchanging, .exchanged): progress.phase = .keychain
        case (.keychain, .keychainDone): progress.phase = .finished
        default: throw InvalidTransition(phase: progress.phase)
        }
        return progress
    }
}
