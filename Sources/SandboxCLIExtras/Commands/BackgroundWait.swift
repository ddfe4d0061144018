import SandboxTransfer

/// What `downloads --wait` waits for: the final outcome (the `completed` event) of every task of
/// the CLI's background session that had none when the wait began, and of every task made since.
///
/// The daemon's listing alone cannot say when that is: its answer can overtake the events sent
/// before it (they pass through the session's event stream, the answer does not), and a task
/// completed long ago looks the same as one whose completion is still on its way. So the tasks
/// completed before the wait attached are remembered from a listing taken first (their outcomes
/// were printed by an earlier wait, or come in the queued events), and every other task counts
/// as outstanding until its `completed` event has been printed. The daemon lists a task as
/// `completed` only once its completion is queued, which the daemon sends to the attached client
/// before the answer: a task listed `completed` whose event was not printed yet is in flight.
struct BackgroundWait {
    /// A task whose outcome was not printed yet, and whether the daemon has it completed already.
    struct Outstanding: Equatable {
        var task: Int
        var completedInDaemon: Bool
        var errorCode: String?
    }

    /// A task printed as failed (or cancelled), and why.
    struct Failure {
        var task: Int
        var error: SandboxError
    }

    /// The tasks of the session that were completed before the wait attached.
    private let completedBefore: Set<Int>
    /// The tasks whose `completed` event this wait printed.
    private(set) var completed: Set<Int> = []
    private(set) var failures: [Failure] = []
    /// Whether every event queued before the wait attached has been delivered.
    private(set) var delivered = false

    /// A wait whose session's tasks were `before` just before it attached.
    init(before: [DownloadTaskSummary]) {
        completedBefore = Set(before.filter(\.state.isFinished).map(\.taskIdentifier))
    }

    /// Records a printed event; returns whether the daemon's listing should be checked now (once
    /// the queued events are delivered: then, and after each completion).
    mutating func record(_ event: BackgroundEvent) -> Bool {
        switch event {
        case .didFinishEvents:
            delivered = true
            return true
        case .didComplete(let task, let error):
            completed.insert(task.taskIdentifier)
            if let error { failures.append(Failure(task: task.taskIdentifier, error: error)) }
            return delivered
        default:
            return false
        }
    }

    /// The tasks of `listed` (the session's tasks, as the daemon lists them now) whose outcome
    /// this wait has not printed yet: the wait is over when there is none.
    func outstanding(_ listed: [DownloadTaskSummary]) -> [Outstanding] {
        listed.filter { !completedBefore.contains($0.taskIdentifier) && !completed.contains($0.taskIdentifier) }.map {
            Outstanding(task: $0.taskIdentifier, completedInDaemon: $0.state.isFinished, errorCode: $0.errorCode)
        }
    }

    /// Records the outcome of a task whose event did not arrive, from the daemon's listing.
    mutating func recordListed(_ task: Outstanding) {
        completed.insert(task.task)
        if let code = task.errorCode {
            failures.append(
                Failure(
                    task: task.task,
                    error: SandboxError(
                        SandboxError.Code(code), "sandboxd lists it as failed; its events did not arrive.")))
        }
    }

    /// The line `downloads --wait` ends with on standard error when a task failed, e.g.
    /// `background download 2 failed: The server answered 404 … [http-status]`.
    var failureSummary: String? {
        guard !failures.isEmpty else { return nil }
        let reasons = failures.map { "task \($0.task): \($0.error.message) [\($0.error.code)]" }
        return failures.count == 1
            ? "background download \(failures[0].task) failed: \(failures[0].error.message) [\(failures[0].error.code)]"
            : "\(failures.count) background downloads failed: " + reasons.joined(separator: "; ")
    }
}
